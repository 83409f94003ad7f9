import AsyncHTTPClient
import Foundation
import NIOCore

extension HTTPClientResponse {
    /// Why a body could not be read whole.
    enum BodyFailure: Error {
        /// It is over the bound: its `Content-Length` says so, or its bytes came to more.
        case tooLarge
        /// The connection failed while it was read.
        case unreadable(any Error)
    }

    /// The whole body, at most `maxBytes` of it: a provider's answer is read into memory, and the
    /// bound keeps a broken or hostile provider from filling it (the rates and the news).
    func wholeBody(upTo maxBytes: Int) async throws(BodyFailure) -> Data {
        do {
            return Data(try await body.collect(upTo: maxBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw .tooLarge
        } catch {
            throw .unreadable(error)
        }
    }
}
