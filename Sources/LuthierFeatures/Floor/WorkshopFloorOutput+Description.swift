extension WorkshopFloorOutput: CustomStringConvertible {
    /// The counts, for a tap's one line: "10 latest, 3 in progress, 12 guitars today".
    public var description: String {
        "\(recentOrders.count) latest, \(inProgress.count) in progress, \(guitarsOrderedToday) guitars today"
    }
}

extension WorkshopFloorState: CustomStringConvertible {
    public var description: String { output.description }
}
