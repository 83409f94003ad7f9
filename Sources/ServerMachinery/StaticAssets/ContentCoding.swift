/// The content codings a static asset can be sent with, and the `Accept-Encoding` negotiation between them.
///
/// Kept apart from ``StaticAssetMiddleware`` (which is generic over its request context) so the
/// negotiation rules can be called and unit-tested without naming a context type.
public enum ContentCoding: String, Sendable, Hashable, CaseIterable {
    /// The bytes as stored in `Public/`.
    case identity
    /// The gzip variant precompressed by ``StaticAssetCatalog`` at start-up.
    case gzip

    /// Picks the coding to answer with, following RFC 9110 §12.5.3, or `nil` when nothing is acceptable (406).
    ///
    /// Why these rules: browsers send `gzip, deflate, br` (identity implied), curl and scripts usually send
    /// nothing (they must get plain bytes), and proxies or careful clients may exclude codings with `q=0`.
    /// - A missing header means the client did not ask for compression, so the plain bytes are sent.
    /// - `gzip` (or `x-gzip`) is acceptable with its own q-value, otherwise with the q-value of `*`, otherwise not.
    /// - `identity` is acceptable unless `identity;q=0`, or `*;q=0` without an `identity` entry, excludes it.
    /// - The higher q-value wins; on a tie gzip wins, because it is the smaller transfer.
    /// - Parameters:
    ///   - acceptEncoding: the raw `Accept-Encoding` value (several header lines joined with `,`), or `nil`.
    ///   - gzipAvailable: whether the asset has a gzip variant at all (tiny and already-compressed files don't).
    public static func negotiate(acceptEncoding: String?, gzipAvailable: Bool = true) -> ContentCoding? {
        guard let acceptEncoding else { return .identity }
        if let known = common[Common(acceptEncoding: acceptEncoding, gzipAvailable: gzipAvailable)] { return known }
        return parsedNegotiation(acceptEncoding: acceptEncoding, gzipAvailable: gzipAvailable)
    }

    /// `Accept-Encoding` as Chromium, Firefox, Safari, curl (`--compressed`) and most HTTP
    /// libraries send it.
    package static let commonAcceptEncodings = [
        "gzip", "gzip, deflate", "deflate, gzip", "gzip, deflate, br", "gzip, deflate, br, zstd", "br, gzip, deflate",
        "deflate, gzip, br, zstd", "identity", "*",
    ]

    package struct Common: Hashable, Sendable {
        package let acceptEncoding: String
        package let gzipAvailable: Bool
    }

    /// The outcome for the common values, worked out once by the parse below: parsing the list on
    /// every request was 4 % of the server's time answering a stylesheet, and 1 % of a page's.
    private static let common: [Common: ContentCoding?] = {
        var table: [Common: ContentCoding?] = [:]
        for value in commonAcceptEncodings {
            for gzipAvailable in [false, true] {
                table[Common(acceptEncoding: value, gzipAvailable: gzipAvailable)] = parsedNegotiation(
                    acceptEncoding: value, gzipAvailable: gzipAvailable)
            }
        }
        return table
    }()

    /// The negotiation itself, reading the list.
    package static func parsedNegotiation(acceptEncoding: String, gzipAvailable: Bool) -> ContentCoding? {
        var gzipQuality: Double?
        var identityQuality: Double?
        var wildcardQuality: Double?
        for element in acceptEncoding.split(separator: ",") {
            guard let (coding, quality) = parseElement(element) else { continue }
            switch coding {
            case "gzip", "x-gzip": gzipQuality = max(gzipQuality ?? 0, quality)
            case "identity": identityQuality = max(identityQuality ?? 0, quality)
            case "*": wildcardQuality = max(wildcardQuality ?? 0, quality)
            default: continue
            }
        }
        let gzip = gzipAvailable ? (gzipQuality ?? wildcardQuality ?? 0) : 0
        let identity = identityQuality ?? wildcardQuality ?? 1
        if gzip > 0, gzip >= identity { return .gzip }
        if identity > 0 { return .identity }
        return nil
    }

    /// Splits one list element such as ` GZip ; q=0.8` into a lower-cased coding and its q-value.
    ///
    /// An element with a malformed q-value is ignored rather than guessed at, as RFC 9110 leaves it undefined.
    private static func parseElement(_ element: Substring) -> (coding: String, quality: Double)? {
        let parts = element.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = parts.first else { return nil }
        let coding = first.trimmingWhitespace().lowercased()
        guard !coding.isEmpty else { return nil }
        var quality = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "q" else { continue }
            guard let value = parseQuality(pair[1].trimmingWhitespace()) else { return nil }
            quality = value
        }
        return (coding, quality)
    }

    /// Parses a `qvalue` (`0`, `0.5`, `1.000` …); anything outside 0…1 or with more than three decimals is rejected.
    private static func parseQuality(_ text: Substring) -> Double? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = pieces.first, whole == "0" || whole == "1" else { return nil }
        if pieces.count == 2 {
            let fraction = pieces[1]
            guard fraction.count <= 3, fraction.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
            if whole == "1", fraction.contains(where: { $0 != "0" }) { return nil }
        }
        guard let value = Double(text), value >= 0, value <= 1 else { return nil }
        return value
    }
}

extension Substring {
    /// Optional whitespace (OWS) around list elements and parameters is spaces and tabs only.
    fileprivate func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
