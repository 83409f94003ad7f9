import SQLMachinery

extension SQLChannel {
    /// Orders placed, moved or changed. Each names the instance that made it, which has told its
    /// own floor already and so skips it when it comes back (``PostgreSQLDatabase/changes()``).
    static let workshop = SQLChannel("workshop", namesItsSender: true)
    /// Sessions saved or deleted.
    static let sessions = SQLChannel("sessions")
}
