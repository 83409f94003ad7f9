import LuthierFeatures

extension LuthierEnvironment {
    /// The environment of a real server: wall-clock time.
    public static var live: LuthierEnvironment {
        LuthierEnvironment(clock: ContinuousClock())
    }
}
