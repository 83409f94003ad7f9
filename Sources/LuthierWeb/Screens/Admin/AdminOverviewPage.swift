/// What the overview template shows: the shop's connections as of the request.
struct AdminOverviewPage: Sendable {
    let sessions: Int
    let maxSessions: Int
    let connections: Int
    let streams: Int
    let kioskStreams: Int
    /// Screens following the workshop floor: the kiosk feed and every open order page.
    let floorReaders: Int
}
