import Foundation
import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The workshop journal's read API, in Hacker News's format, so that any client of that API can
/// read it (the shop's own journal client among them): `newstories.json` lists the ids newest
/// first, and `item/{id}.json` is one story.
struct JournalController: Sendable {
    let journal: JournalClient
    let showroom: Showroom
    let renderer: PageRenderer
    let responses: ResponseFactory

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/api/v0/newstories.json": newStories, "/api/v0/item/{item}": item, "/journal": page])
    }

    /// `GET /journal`: the journal as the shop's reader holds it now (the kiosk's panel); with
    /// JavaScript it follows the kiosk's stream, which carries the panel's changes.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let version = showroom.kioskFragments.version
        let page = JournalPage(journal: showroom.journalPanel)
        return responses.page(renderer.page(template: "journal", key: page) { page }, version: version, for: request)
    }

    static let jsonType = "application/json; charset=utf-8"

    /// `GET /api/v0/newstories.json`: up to 500 ids, newest first.
    @Sendable func newStories(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let ids = try await journal.newStoryIDs(JournalClient.listedStories)
        return json(try JSONEncoder().encode(ids), for: request)
    }

    /// `GET /api/v0/item/{id}.json`: the story, or `404` with `null` (as Hacker News answers an
    /// item that is not there); `400` for an id that is not a whole number.
    @Sendable func item(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let item = context.parameters.get("item") ?? ""
        guard item.hasSuffix(".json") else {
            throw UserFacingError(.notFound, "No such address: an item is /api/v0/item/{id}.json.")
        }
        guard let id = Int(item.dropLast(".json".count)), id > 0 else {
            throw UserFacingError(
                .badRequest,
                "id: '\(item.dropLast(".json".count).prefix(40))' is not a story id; ids are whole numbers from 1.")
        }
        guard let story = try await journal.story(id) else {
            return json(Data("null".utf8), status: .notFound, for: request)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return json(try encoder.encode(story), for: request)
    }

    private func json(_ data: Data, status: HTTPResponse.Status = .ok, for request: Request) -> Response {
        // A reader polls: it may keep an answer, but asks again each time (`no-cache`).
        responses.text(
            ByteBuffer(data: data), type: Self.jsonType, status: status, headers: [.cacheControl: "no-cache"],
            for: request)
    }
}
