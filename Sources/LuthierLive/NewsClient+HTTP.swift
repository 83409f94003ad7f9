import AsyncHTTPClient
import Foundation
import LuthierDomain
import LuthierFeatures
import NIOCore

extension NewsClient {
    /// The largest answer read, for the id list and for one story alike: Hacker News's own
    /// `newstories.json` is about 4 KB.
    static let maximumBodyBytes = 256 * 1024

    /// Any Hacker-News-compatible API at `baseURL` (`https://hacker-news.firebaseio.com` or
    /// another shop's `http://host:port/api`): `v0/newstories.json` and `v0/item/{id}.json`,
    /// with `mapError` into the two cases: nothing at the address is `.addressUnreachable`,
    /// and a status other than 200, an answer too large or one that is not what the API
    /// promises is `.invalidResponse`. The caller's deadline cancels a request in flight.
    public static func http(baseURL: URL, httpClient: HTTPClient) -> NewsClient {
        let base = baseURL.absoluteString.hasSuffix("/") ? baseURL.absoluteString : baseURL.absoluteString + "/"
        return NewsClient(
            newStoryIDs: {
                let body = try await get(base + "v0/newstories.json", with: httpClient)
                do { return try JSONDecoder().decode([Int].self, from: body) } catch {
                    throw NewsError.invalidResponse
                }
            },
            story: { id in
                let body = try await get(base + "v0/item/\(id).json", with: httpClient)
                do { return try JSONDecoder().decode(JournalStory.self, from: body) } catch {
                    throw NewsError.invalidResponse
                }
            })
    }

    /// The body of a `200` answer at `url`, or the `NewsError` that says why there is none.
    private static func get(_ url: String, with httpClient: HTTPClient) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: .seconds(60))
        } catch {
            throw NewsError.addressUnreachable(url)
        }
        guard response.status.code == 200 else { throw NewsError.invalidResponse }
        do throws(HTTPClientResponse.BodyFailure) {
            return try await response.wholeBody(upTo: maximumBodyBytes)
        } catch {
            switch error {
            case .tooLarge: throw NewsError.invalidResponse
            case .unreadable: throw NewsError.addressUnreachable(url)
            }
        }
    }
}
