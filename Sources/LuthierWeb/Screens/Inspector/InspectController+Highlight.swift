import Hummingbird
import ServerMachinery

extension InspectController {
    /// `POST /inspect/highlight` (`highlight`: `on` or `off`): the switch that makes every open
    /// page of the session outline each fragment a change updates, for half a second, titled with
    /// the input that caused it (React DevTools' "highlight updates"). The session records while
    /// it is on, so that each change has its cause; the switch lasts as long as the session in
    /// this instance's memory.
    @Sendable func highlight(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let value = try await forms.singleField("highlight", of: request)
        guard value == "on" || value == "off" else {
            throw UserFacingError(.unprocessableContent, "highlight must be on or off.")
        }
        guard let session = try await context.session.existing() else {
            throw UserFacingError(.forbidden, "No live session: open / first; the inspector follows that session.")
        }
        session.highlightUpdates(value == "on")
        return sessions.done(request, redirect: "/inspect")
    }
}
