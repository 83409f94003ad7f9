import Foundation
import Hummingbird
import NIOCore

/// Reads a posted form body with the checks every form route needs: the content type, a size
/// limit, and strict decoding, each failing with a message the customer can act on.
package struct FormReader: Sendable {
    package let maxBytes: Int

    package init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    package func fields(of request: Request) async throws(UserFacingError) -> [(name: String, value: String)] {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBytes)
        } catch is NIOTooManyBytesError {
            throw UserFacingError(.contentTooLarge, "The form is larger than \(maxBytes) bytes.")
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

    /// For posts that carry no fields (reset, checkout, order…): any field is a mistake worth saying.
    package func requireNoFields(_ request: Request, action: String) async throws(UserFacingError) {
        if let field = try await fields(of: request).first {
            throw UserFacingError(.unprocessableContent, "\(action) takes no fields; '\(field.name)' was sent.")
        }
    }

    /// The value of the one field a post must carry, refusing others, repeats and absence.
    package func singleField(_ name: String, of request: Request) async throws(UserFacingError) -> String {
        let fields = try await fields(of: request)
        if let other = fields.first(where: { $0.name != name }) {
            throw UserFacingError(.unprocessableContent, "Unknown field '\(other.name)'; allowed fields: \(name).")
        }
        guard fields.count == 1, let value = fields.first?.value else {
            throw UserFacingError(
                .unprocessableContent,
                fields.isEmpty
                    ? "Field '\(name)' is required." : "Field '\(name)' was sent more than once; send it once."
            )
        }
        return value
    }

    /// The one field a post must carry, read as one of a closed set of options; any other value is
    /// refused naming the field and every allowed value.
    package func singleOption<Option: CaseIterable & RawRepresentable>(
        _ name: String,
        of request: Request,
        as type: Option.Type
    ) async throws(UserFacingError) -> Option where Option.RawValue == String {
        let value = try await singleField(name, of: request)
        guard let option = Option(rawValue: value) else {
            let allowed = Option.allCases.map(\.rawValue).joined(separator: ", ")
            throw UserFacingError(
                .unprocessableContent,
                "Field '\(name)' cannot be '\(value)'; allowed values: \(allowed)."
            )
        }
        return option
    }
}
