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

    /// A complete `<svg>` element, ready to be placed in a page as is.
    ///
    /// It scales to its container (`width="100%"`, `viewBox="0 0 400 1000"`), names the guitar for
    /// assistive technology (`role="img"`, `aria-label`), carries the four raw values as `data-`
    /// attributes for tests and scripts, and prefixes every id it defines with the configuration, so
    /// that pictures of different guitars can share one page.
    public let svg: String

    /// The picture of `guitar`. The result only depends on the guitar, so each picture is drawn
    /// once, and every session, cart line and checkout showing a guitar shares its one copy of the
    /// markup (about 14 KB, which would otherwise be most of what an idle session holds).
    public init(guitar: Guitar) {
        self.guitar = guitar
        self.svg = Self.drawings.svg(of: guitar)
    }

    private static let drawings = Drawings()

    /// The pictures drawn so far. A memo of a pure function, so it cannot change what anyone sees;
    /// bounded by construction, as there are only 256 guitars (about 3.6 MB if all were drawn).
    /// Drawn on first use rather than all at start-up, which would take over 100 ms.
    private final class Drawings: Sendable {
        private let drawn = Mutex<[Guitar: String]>([:])

        func svg(of guitar: Guitar) -> String {
            if let svg = drawn.withLock({ $0[guitar] }) { return svg }
            let svg = Drawing(guitar: guitar).svg
            return drawn.withLock { drawn in
                if let earlier = drawn[guitar] { return earlier }
                drawn[guitar] = svg
                return svg
            }
        }
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
                ##"width="100%""##,
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
            return "<svg \(root)>" + layers.joined() + "</svg>"
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
