import LuthierFeatures

/// What the kiosk template shows.
struct KioskPage: Hashable, Sendable {
    let output: KioskOutput
    /// The journal panel's HTML as the kiosk's fragments hold it.
    let journal: String
}
