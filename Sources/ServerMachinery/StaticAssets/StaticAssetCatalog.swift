import CompressNIO
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Every file of the `Public/` folder, read, fingerprinted and gzipped once at start-up.
///
/// Why a catalog rather than reading the disk per request: the folder is small and immutable for the life of
/// the process, so loading it once makes every response a dictionary lookup (no file I/O, no compression on the
/// request path), gives each file a content-based strong ETag that stays stable across restarts and machines,
/// and — because only names found in the catalog can be served — makes path traversal impossible by
/// construction rather than by filtering alone.
///
/// Hidden entries (names starting with `.`) and symbolic links are not loaded, so `.git`, `.env` or a link
/// pointing outside the folder can never be served.
public struct StaticAssetCatalog: Sendable {
    /// Why loading failed; start-up should stop with this message rather than serve a half-empty site.
    public enum LoadError: Error, CustomStringConvertible, Equatable {
        case directoryMissing(path: String)
        case notADirectory(path: String)
        case unreadable(path: String, reason: String)

        public var description: String {
            switch self {
            case .directoryMissing(let path):
                "static asset directory '\(path)' does not exist"
            case .notADirectory(let path):
                "static asset path '\(path)' is not a directory"
            case .unreadable(let path, let reason):
                "static asset path '\(path)' could not be read: \(reason)"
            }
        }
    }

    /// One encoded form of a file: the exact bytes to send and the ETag that names them.
    public struct Representation: Sendable {
        /// The response body (shares storage across requests; `ByteBuffer` is copy-on-write).
        public let body: ByteBuffer
        /// A strong entity tag including its quotes, e.g. `"9c1f0e6a2b3d4c5e"`.
        public let etag: String
    }

    /// A file of the folder with everything needed to answer for it without touching the disk.
    public struct Asset: Sendable {
        /// The path relative to the root with `/` separators, e.g. `css/site.css`.
        public let relativePath: String
        /// The `Content-Type` value, with `charset=utf-8` for text types.
        public let contentType: String
        /// The file's modification time as an IMF-fixdate, ready for `Last-Modified`.
        public let lastModified: String
        /// The bytes as stored.
        public let identity: Representation
        /// The precompressed bytes; `nil` for tiny files, already-compressed formats, or when gzip did not help.
        public let gzip: Representation?
        /// Whether this is the file under its fingerprinted name (`styles.<hash>.css`): that name
        /// always means these bytes, so it may be cached for ever (`immutableCacheControl`).
        public var isFingerprinted = false

        /// The name that changes with the contents: `styles.css` → `styles.9c1f0e6a2b3d4c5e.css`.
        public var fingerprintedPath: String {
            let tag = identity.etag.filter { $0 != "\"" }
            let folder = relativePath.split(separator: "/").dropLast().map { $0 + "/" }.joined()
            let name = relativePath.split(separator: "/").last.map(String.init) ?? relativePath
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(folder)\(name).\(tag)" }
            return "\(folder)\(name[..<dot]).\(tag)\(name[dot...])"
        }

        /// The representation to send for a negotiated coding (identity when there is no gzip variant).
        public func representation(for coding: ContentCoding) -> Representation {
            switch coding {
            case .identity: identity
            case .gzip: gzip ?? identity
            }
        }
    }

    /// The smallest file worth compressing by default; below it gzip's header and the extra `Vary` cost more.
    public static let defaultMinimumGzipSize = 1024

    /// How a fingerprinted name is cached: a year, never revalidated, since its bytes never change.
    public static let immutableCacheControl = "public, max-age=31536000, immutable"

    /// The directory the catalog was loaded from, as given.
    public let rootPath: String
    private let assets: [String: Asset]
    /// The same files under their fingerprinted names.
    private let fingerprinted: [String: Asset]

    /// Loads every regular file below `directory`.
    ///
    /// Reads synchronously: it is meant to run once before the server starts, not on an event loop.
    /// - Parameters:
    ///   - directory: the folder to serve, e.g. `Public`.
    ///   - minimumGzipSize: files smaller than this many bytes get no gzip variant.
    /// - Throws: ``LoadError`` naming the path when the folder (or a file in it) is missing or unreadable.
    public init(directory: String, minimumGzipSize: Int = StaticAssetCatalog.defaultMinimumGzipSize) throws {
        let fileManager = FileManager.default
        var isDirectory = false
        guard Self.itemExists(atPath: directory, isDirectory: &isDirectory, fileManager: fileManager) else {
            throw LoadError.directoryMissing(path: directory)
        }
        guard isDirectory else { throw LoadError.notADirectory(path: directory) }

        var assets: [String: Asset] = [:]
        try Self.load(
            directory: directory,
            relativePrefix: "",
            minimumGzipSize: minimumGzipSize,
            fileManager: fileManager,
            into: &assets
        )
        self.rootPath = directory
        self.assets = assets
        var fingerprinted: [String: Asset] = [:]
        for asset in assets.values where assets[asset.fingerprintedPath] == nil {
            var alias = asset
            alias.isFingerprinted = true
            fingerprinted[asset.fingerprintedPath] = alias
        }
        self.fingerprinted = fingerprinted
    }

    /// The address pages link a file by: its fingerprinted name, so that a browser that cached an
    /// older version fetches the new one; nil when the folder has no such file.
    public func url(for relativePath: String) -> String? {
        assets[relativePath].map { "/" + $0.fingerprintedPath }
    }

    /// Every file under each name it is served by (its own and its fingerprinted one), keyed by
    /// that name without the leading `/`.
    package var everyAsset: [(path: String, asset: Asset)] {
        assets.map { ($0.key, $0.value) } + fingerprinted.map { ($0.key, $0.value) }
    }

    /// The number of files served.
    public var count: Int { assets.count }

    /// Every servable relative path, sorted (for logs and diagnostics).
    public var relativePaths: [String] { assets.keys.sorted() }

    /// The asset a request path names, or `nil` when it names nothing in the catalog or is unsafe.
    ///
    /// The path is the raw, still percent-encoded path of the request URI (e.g. `/css/site.css`). Encoded
    /// slashes or backslashes (`%2f`, `%5c`), backslashes, NUL, `.` and `..` segments (raw or as `%2e`), empty
    /// segments and malformed escapes all yield `nil`, so a lookup can only ever reach a catalog entry.
    public func asset(forRequestPath path: String) -> Asset? {
        // Most requests name a file exactly or are not for a file at all: a name without escapes
        // is its own key, and a key is only ever a safe path, so a hit needs no decoding.
        if !path.utf8.contains(UInt8(ascii: "%")), path.utf8.first == UInt8(ascii: "/") {
            let key = String(path.utf8.dropFirst()) ?? ""
            return assets[key] ?? fingerprinted[key]
        }
        guard let key = Self.catalogKey(forRequestPath: path) else { return nil }
        return assets[key] ?? fingerprinted[key]
    }

    /// Turns a raw request path into a catalog key (`css/site.css`), or `nil` when the path is unsafe.
    package static func catalogKey(forRequestPath path: String) -> String? {
        let raw = Array(path.utf8)
        guard raw.first == UInt8(ascii: "/"), raw.count > 1 else { return nil }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = 1
        while index < raw.count {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < raw.count, let high = UInt8(hexDigit: raw[index + 1]),
                    let low = UInt8(hexDigit: raw[index + 2])
                else { return nil }
                let value = high << 4 | low
                // An encoded separator or NUL would let a single "segment" smuggle a path; never legitimate here.
                guard value != UInt8(ascii: "/"), value != UInt8(ascii: "\\"), value != 0 else { return nil }
                decoded.append(value)
                index += 3
            } else {
                guard byte != UInt8(ascii: "\\"), byte != 0 else { return nil }
                decoded.append(byte)
                index += 1
            }
        }
        guard let key = String(validating: decoded, as: UTF8.self) else { return nil }
        for segment in key.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, segment != ".", segment != ".." else { return nil }
        }
        return key
    }

    // MARK: Loading

    private static func itemExists(atPath path: String, isDirectory: inout Bool, fileManager: FileManager) -> Bool {
        // `attributesOfItem` does not follow links; the root itself may legitimately be a link, so resolve it.
        guard let attributes = try? fileManager.attributesOfItem(atPath: path) else { return false }
        let type = attributes[.type] as? FileAttributeType
        if type == .typeSymbolicLink {
            guard let destination = try? fileManager.destinationOfSymbolicLink(atPath: path) else { return false }
            let resolved =
                destination.hasPrefix("/")
                ? destination
                : (path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
                    + "/" + destination)
            return itemExists(atPath: resolved, isDirectory: &isDirectory, fileManager: fileManager)
        }
        isDirectory = type == .typeDirectory
        return true
    }

    private static func load(
        directory: String,
        relativePrefix: String,
        minimumGzipSize: Int,
        fileManager: FileManager,
        into assets: inout [String: Asset]
    ) throws {
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: directory)
        } catch {
            throw LoadError.unreadable(path: directory, reason: String(describing: error))
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let fullPath = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let relativePath = relativePrefix + name
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try fileManager.attributesOfItem(atPath: fullPath)
            } catch {
                throw LoadError.unreadable(path: fullPath, reason: String(describing: error))
            }
            switch attributes[.type] as? FileAttributeType {
            case .typeDirectory?:
                try load(
                    directory: fullPath,
                    relativePrefix: relativePath + "/",
                    minimumGzipSize: minimumGzipSize,
                    fileManager: fileManager,
                    into: &assets
                )
            case .typeRegular?:
                guard let contents = fileManager.contents(atPath: fullPath) else {
                    throw LoadError.unreadable(path: fullPath, reason: "the file could not be opened")
                }
                let modified = attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
                assets[relativePath] = try makeAsset(
                    relativePath: relativePath,
                    bytes: ByteBuffer(bytes: contents),
                    modified: modified,
                    minimumGzipSize: minimumGzipSize
                )
            default:
                // Symbolic links, sockets, devices: never served.
                continue
            }
        }
    }

    private static func makeAsset(
        relativePath: String,
        bytes: ByteBuffer,
        modified: Date,
        minimumGzipSize: Int
    ) throws -> Asset {
        let fileExtension = fileExtension(of: relativePath)
        let tag = fnv1a64Hex(bytes)
        let identity = Representation(body: bytes, etag: "\"\(tag)\"")
        var gzip: Representation?
        if bytes.readableBytes >= minimumGzipSize, !incompressibleExtensions.contains(fileExtension) {
            let compressed: ByteBuffer
            do {
                compressed = try gzipped(bytes)
            } catch {
                throw LoadError.unreadable(path: relativePath, reason: "gzip failed: \(error)")
            }
            if compressed.readableBytes < bytes.readableBytes {
                gzip = Representation(body: compressed, etag: "\"\(tag)-gzip\"")
            }
        }
        return Asset(
            relativePath: relativePath,
            contentType: contentType(forExtension: fileExtension),
            lastModified: httpDate(modified),
            identity: identity,
            gzip: gzip
        )
    }

    /// The gzip variant of a file, as the catalog makes it.
    ///
    /// Public so that the micro-benchmarks (`Benchmarks/Micro`) time the server's own compression settings
    /// rather than a copy of them.
    public static func gzipped(_ bytes: ByteBuffer) throws -> ByteBuffer {
        var input = bytes
        return try input.compress(with: .gzip(configuration: .init(compressionLevel: .bestCompression)))
    }

    // MARK: Media types

    private static func fileExtension(of path: String) -> String {
        guard let name = path.split(separator: "/").last, let dot = name.lastIndex(of: "."), dot != name.startIndex
        else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Formats that are already compressed: gzipping them again only burns CPU on the client.
    private static let incompressibleExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "webp", "avif", "ico", "woff", "woff2", "gz", "tgz", "zip", "br", "zst",
        "mp3", "mp4", "webm", "ogg", "pdf",
    ]

    private static func contentType(forExtension fileExtension: String) -> String {
        switch fileExtension {
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "html", "htm": "text/html; charset=utf-8"
        case "txt": "text/plain; charset=utf-8"
        case "csv": "text/csv; charset=utf-8"
        case "xml": "application/xml; charset=utf-8"
        case "json", "map": "application/json; charset=utf-8"
        case "webmanifest": "application/manifest+json; charset=utf-8"
        case "svg": "image/svg+xml; charset=utf-8"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "ico": "image/x-icon"
        case "woff": "font/woff"
        case "woff2": "font/woff2"
        case "ttf": "font/ttf"
        case "otf": "font/otf"
        case "pdf": "application/pdf"
        case "wasm": "application/wasm"
        default: "application/octet-stream"
        }
    }

    // MARK: Fingerprints and dates

    /// FNV-1a 64-bit of the bytes as 16 hex digits: cheap, dependency-free, and plenty to tell versions apart.
    package static func fnv1a64Hex(_ bytes: ByteBuffer) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeReadableBytes { buffer in
            for byte in buffer {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), computed by hand to avoid locale-dependent formatters.
    package static func httpDate(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil-from-days (Howard Hinnant's algorithm).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // 1970-01-01 was a Thursday.
        let weekday = Int(((days % 7) + 7 + 4) % 7)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[weekday]), \(twoDigits(day)) \(months[Int(month) - 1]) \(year) "
            + "\(twoDigits(secondOfDay / 3_600)):\(twoDigits(secondOfDay % 3_600 / 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }
}
