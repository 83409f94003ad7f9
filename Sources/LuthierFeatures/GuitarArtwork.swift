import LuthierDomain
import Synchronization

/// The picture of one configured guitar: a self-contained SVG element drawn on the server.
///
/// The customer decides by looking, so the picture has to read as a real instrument, and it has to
/// reach every browser the shop serves (old ones and ones without JavaScript, the kiosk, HTTP tests)
/// through the same server-rendered fragments as the rest of the page. Drawing it here, from the
/// four choices alone, keeps it deterministic: the same guitar always yields the same bytes.
public struct GuitarArtwork: Hashable, Sendable {
    /// The guitar this picture shows.
    public let guitar: Guitar

    /// A complete SVG document: what the picture's own address answers.
    ///
    /// It scales to its container (`viewBox="0 0 400 1000"`), names the guitar for assistive
    /// technology (`role="img"`, `aria-label`), carries the four raw values as `data-` attributes,
    /// and prefixes every id it defines with the configuration.
    public let svg: String

    /// Where the picture is served: `/guitars/<shape>-<color>-<body>-<fretboard>.<fingerprint>.svg`,
    /// the fingerprint taken from its bytes, so the address is the picture's for good and a
    /// browser keeps it (`immutable`): a change shown a second time costs no picture at all.
    public let path: String

    /// The `<img>` every page and fragment shows the guitar with: its ``path``, the guitar's
    /// description as its text, its size (so that the page does not move when it arrives) and the
    /// four raw values as `data-` attributes for tests and scripts.
    public let image: String

    /// The picture of `guitar`. The result only depends on the guitar, so each picture is drawn
    /// once, and every session, cart line and checkout showing a guitar shares its one copy of the
    /// markup (about 14 KB, which would otherwise be most of what an idle session holds).
    public init(guitar: Guitar) {
        self.guitar = guitar
        let drawn = Self.drawings.drawn(guitar)
        svg = drawn.svg
        path = drawn.path
        image = drawn.image
    }

    private static let drawings = Drawings()

    /// The pictures drawn so far. A memo of a pure function, so it cannot change what anyone sees;
    /// bounded by construction, as there are only 256 guitars (about 3.6 MB if all were drawn).
    /// Drawn on first use rather than all at start-up, which would take over 100 ms.
    private final class Drawings: Sendable {
        struct Drawn {
            let svg: String
            let path: String
            let image: String
        }

        private let drawn = Mutex<[Guitar: Drawn]>([:])

        func drawn(_ guitar: Guitar) -> Drawn {
            if let drawn = drawn.withLock({ $0[guitar] }) { return drawn }
            let svg = Drawing(guitar: guitar).svg
            let path = GuitarArtwork.path(of: guitar, fingerprint: GuitarArtwork.fingerprint(of: svg))
            let new = Drawn(svg: svg, path: path, image: GuitarArtwork.image(of: guitar, at: path))
            return drawn.withLock { drawn in
                if let earlier = drawn[guitar] { return earlier }
                drawn[guitar] = new
                return new
            }
        }
    }

    /// The address of `guitar`'s picture whose bytes have `fingerprint`.
    static func path(of guitar: Guitar, fingerprint: String) -> String {
        "/guitars/\(CartLine.id(for: guitar)).\(fingerprint).svg"
    }

    /// The guitar a picture's address names (whatever its fingerprint), or nil when it names none:
    /// what the picture's route reads, before it checks the address is the picture's current one.
    public static func guitar(inPath file: Substring) -> Guitar? {
        let parts = file.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "svg" else { return nil }
        return CartLine.guitar(id: parts[0])
    }

    /// Sixteen hex digits of the 64-bit FNV-1a hash of `svg`'s bytes: any change to the drawing
    /// changes the address, and the same drawing always has the same one, in every process.
    static func fingerprint(of svg: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in svg.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The `<img>` of `guitar`'s picture at `path`.
    static func image(of guitar: Guitar, at path: String) -> String {
        ##"<img class="guitar-artwork" src="\##(path)" alt="\##(guitar.description)" width="400" height="1000" "##
            + ##"data-shape="\##(guitar.shape.rawValue)" data-color="\##(guitar.color.rawValue)" "##
            + ##"data-body="\##(guitar.body.rawValue)" data-fretboard="\##(guitar.fretboard.rawValue)">"##
    }

    /// The prefix of every id in the picture of `guitar`: `g-<shape>-<color>-<body>-<fretboard>-`.
    public static func idPrefix(for guitar: Guitar) -> String {
        "g-\(guitar.shape.rawValue)-\(guitar.color.rawValue)-\(guitar.body.rawValue)-\(guitar.fretboard.rawValue)-"
    }
}

extension GuitarArtwork {
    /// One rendering pass: the guitar, its id prefix, and the layers drawn back to front.
    ///
    /// Public only so that the micro-benchmarks (`Benchmarks/Micro`) can time the drawing itself, which
    /// `GuitarArtwork(guitar:)` hides behind its memo after the first picture of each guitar.
    public struct Drawing: Sendable {
        let guitar: Guitar
        let prefix: String

        public init(guitar: Guitar) {
            self.guitar = guitar
            self.prefix = GuitarArtwork.idPrefix(for: guitar)
        }

        /// An id of this picture.
        func id(_ name: String) -> String { prefix + name }

        /// A paint or clip reference to an id of this picture.
        func url(_ name: String) -> String { "url(#\(prefix)\(name))" }

        /// The picture, drawn afresh on every read (the memo is `GuitarArtwork`'s, not this).
        public var svg: String {
            let root = [
                ##"xmlns="http://www.w3.org/2000/svg""##,
                ##"xmlns:xlink="http://www.w3.org/1999/xlink""##,
                ##"viewBox="0 0 400 1000""##,
                ##"width="400""##,
                ##"height="1000""##,
                ##"preserveAspectRatio="xMidYMid meet""##,
                ##"role="img""##,
                ##"aria-label="\##(guitar.description)""##,
                ##"class="guitar-artwork""##,
                ##"data-shape="\##(guitar.shape.rawValue)""##,
                ##"data-color="\##(guitar.color.rawValue)""##,
                ##"data-body="\##(guitar.body.rawValue)""##,
                ##"data-fretboard="\##(guitar.fretboard.rawValue)""##,
            ].joined(separator: " ")
            let layers = [
                definitions,
                shadow,
                bodyLayers,
                pickguard,
                neckLayers,
                electronics,
                bridge,
                strings,
                tuners,
            ]
            // The wood's tint multiplies the finish beneath it (a style of the picture's own: the
            // page's style sheet does not reach into an image).
            let style = "<style>.wood-tint{mix-blend-mode:multiply}</style>"
            return "<svg \(root)>" + style + layers.joined() + "</svg>"
        }

        private var definitions: String {
            "<defs>" + finishDefinitions + woodDefinitions + fretboardDefinitions + hardwareDefinitions
                + ##"<path id="\##(id("outline"))" d="\##(bodyOutline.data)"/>"##
                + ##"<path id="\##(id("head"))" d="\##(headstockOutline.data)"/>"##
                + ##"<clipPath id="\##(id("clip"))"><use xlink:href="#\##(id("outline"))"/></clipPath>"##
                + ##"<filter id="\##(id("blur"))" x="-10%" y="-10%" width="120%" height="120%">"##
                + ##"<feGaussianBlur stdDeviation="7"/></filter>"##
                + "</defs>"
        }

        /// A soft drop shadow under body and neck, so the guitar stands off the page.
        private var shadow: String {
            ##"<g opacity=".32" transform="translate(8 10)" filter="\##(url("blur"))" fill="#1a120c">"##
                + ##"<use xlink:href="#\##(id("outline"))"/><use xlink:href="#\##(id("head"))"/>"##
                + ##"<path d="\##(neckOutline.data)"/></g>"##
        }
    }
}
