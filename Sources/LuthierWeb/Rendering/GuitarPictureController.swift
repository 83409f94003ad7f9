import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery
import Synchronization

/// `GET /guitars/<shape>-<color>-<body>-<fretboard>.<fingerprint>.svg`: a guitar's picture, at the
/// address every page and fragment names it by (``GuitarArtwork/image``).
///
/// The address holds the fingerprint of the picture's bytes, so its answer never changes: a
/// browser keeps it for a year without asking again (`immutable`), and a change back to a guitar
/// it has shown costs no picture at all. Each picture is drawn and compressed once per process
/// (there are 256); an address with another fingerprint (a drawing since changed) is not found.
struct GuitarPictureController: Sendable {
    private let answers = Answers()

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/guitars/:file": picture])
    }

    @Sendable func picture(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let file = context.parameters.get("file") ?? ""
        guard let guitar = GuitarArtwork.guitar(inPath: Substring(file)),
            GuitarArtwork(guitar: guitar).path == "/guitars/" + file
        else {
            throw UserFacingError(
                .notFound,
                "No guitar picture at this address; pictures are at the addresses the shop's pages give them "
                    + "(/guitars/<shape>-<color>-<body>-<fretboard>.<fingerprint>.svg).")
        }
        let answer = try answers.answer(for: guitar)
        if ResponseFactory.acceptsGzip(request) {
            return Response(status: .ok, headers: Self.gzipHeaders, body: ResponseBody(byteBuffer: answer.gzip))
        }
        return Response(status: .ok, headers: Self.headers, body: ResponseBody(byteBuffer: answer.plain))
    }

    /// An image may be kept for good; as a document of its own it may load nothing, and only its
    /// own style applies.
    private static let headers: HTTPFields = [
        .contentType: "image/svg+xml", .cacheControl: "public, max-age=31536000, immutable", .vary: "Accept-Encoding",
        .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
    ]
    private static let gzipHeaders: HTTPFields = {
        var gzip = headers
        gzip[.contentEncoding] = "gzip"
        return gzip
    }()

    /// Each picture's bytes, plain and compressed, made on first asking: a memo of a pure function,
    /// bounded by the 256 guitars.
    private final class Answers: Sendable {
        struct Answer {
            let plain: ByteBuffer
            let gzip: ByteBuffer
        }

        private let made = Mutex<[Guitar: Answer]>([:])

        func answer(for guitar: Guitar) throws -> Answer {
            if let answer = made.withLock({ $0[guitar] }) { return answer }
            let plain = ByteBuffer(string: GuitarArtwork(guitar: guitar).svg)
            let answer = Answer(plain: plain, gzip: try GzipBody.compressing(plain))
            return made.withLock { made in
                if let earlier = made[guitar] { return earlier }
                made[guitar] = answer
                return answer
            }
        }
    }
}
