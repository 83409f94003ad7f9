import Foundation
import Hummingbird
import LuthierDomain

/// Reads a posted form body with the checks every form route needs: the content type, a size
/// limit, and strict decoding, each failing with a message the customer can act on.
struct FormReader: Sendable {
    let maxBytes: Int

    func fields(of request: Request) async throws(UserFacingError) -> [(name: String, value: String)] {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw UserFacingError(.contentTooLarge, "The form is larger than \(maxBytes) bytes.")
        } catch {
            throw UserFacingError(.badRequest, "The form body could not be read.")
        }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard mediaType == "application/x-www-form-urlencoded" || (mediaType.isEmpty && body.readableBytes == 0) else {
            throw UserFacingError(
                .unsupportedMediaType,
                "Send the form as application/x-www-form-urlencoded (got '\(mediaType.isEmpty ? "none" : mediaType)')."
            )
        }
        do {
            return try URLEncodedForm.parse(bytes: Array(buffer: body))
        } catch {
            throw UserFacingError(.unprocessableContent, error.message)
        }
    }
}
