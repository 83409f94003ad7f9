import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct GuitarArtworkTests {
    @Test("one guitar's picture is drawn once and shared: the same markup, one copy in memory")
    func samePictureIsShared() {
        func storage(_ svg: String) -> UnsafeRawPointer? {
            var svg = svg
            return svg.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        let guitar = Guitar(shape: .longV, color: .dusk, body: .koa, fretboard: .ebony)
        let first = GuitarArtwork(guitar: guitar)
        let second = GuitarArtwork(guitar: guitar)
        #expect(first.svg == GuitarArtwork.Drawing(guitar: guitar).svg)
        #expect(storage(first.svg) == storage(second.svg))
        let other = GuitarArtwork(guitar: .standard)
        #expect(storage(other.svg) != storage(first.svg))
    }

    @Test func everyConfigurationIsWellFormedXML() throws {
        for guitar in Guitar.allConfigurations {
            let document = try SVGDocument(GuitarArtwork(guitar: guitar).svg)
            #expect(document.elements.first?.name == "svg", "\(guitar)")
            #expect(document.elements.count > 50, "\(guitar) draws too little")
        }
    }

    @Test func rootCarriesSizingAccessibilityAndDataAttributes() throws {
        for guitar in Guitar.allConfigurations {
            let root = try #require(try SVGDocument(GuitarArtwork(guitar: guitar).svg).elements.first)
            #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
            #expect(root.attributes["viewBox"] == "0 0 400 1000")
            // An image document of its own: its size is its intrinsic one; the page's <img> scales it.
            #expect(root.attributes["width"] == "400")
            #expect(root.attributes["height"] == "1000")
            #expect(root.attributes["preserveAspectRatio"] == "xMidYMid meet")
            #expect(root.attributes["role"] == "img")
            #expect(root.attributes["aria-label"] == guitar.description)
            #expect(root.attributes["data-shape"] == guitar.shape.rawValue)
            #expect(root.attributes["data-color"] == guitar.color.rawValue)
            #expect(root.attributes["data-body"] == guitar.body.rawValue)
            #expect(root.attributes["data-fretboard"] == guitar.fretboard.rawValue)
        }
    }

    @Test func everyPictureHasAnAddressOfItsOwnThatNamesItsGuitarAndItsBytes() throws {
        var paths: Set<String> = []
        for guitar in Guitar.allConfigurations {
            let artwork = GuitarArtwork(guitar: guitar)
            let match = try #require(artwork.path.wholeMatch(of: /\/guitars\/([a-zA-Z-]+\.([0-9a-f]{16})\.svg)/))
            #expect(GuitarArtwork.guitar(inPath: match.output.1) == guitar)
            #expect(String(match.output.2) == GuitarArtwork.fingerprint(of: artwork.svg))
            paths.insert(artwork.path)
            #expect(
                artwork.image
                    == #"<img class="guitar-artwork" src="\#(artwork.path)" alt="\#(guitar.description)" "#
                    + #"width="400" height="1000" data-shape="\#(guitar.shape.rawValue)" "#
                    + #"data-color="\#(guitar.color.rawValue)" data-body="\#(guitar.body.rawValue)" "#
                    + #"data-fretboard="\#(guitar.fretboard.rawValue)">"#)
        }
        #expect(paths.count == 256)
        // Another drawing of the same guitar would have another address.
        let standard = GuitarArtwork(guitar: .standard).svg
        #expect(GuitarArtwork.fingerprint(of: standard + " ") != GuitarArtwork.fingerprint(of: standard))
    }

    @Test(arguments: [
        "casual-natural-mahogany.0bdba516ae6f6666.svg", "casual-natural-mahogany-rosewood-x.0bdba516ae6f6666.svg",
        "casual-natural-mahogany-rosewood.svg", "casual-natural-mahogany-rosewood.0bdba516ae6f6666.png",
        "Casual-natural-mahogany-rosewood.0bdba516ae6f6666.svg", "casual-natural-oak-rosewood.0bdba516ae6f6666.svg",
        "", "..", "casual-natural-mahogany-rosewood.a.b.svg",
    ])
    func anAddressThatNamesNoGuitarIsNone(file: String) {
        #expect(GuitarArtwork.guitar(inPath: Substring(file)) == nil)
    }

    @Test func theStandardGuitarIsLabelledInPlainWords() {
        let svg = GuitarArtwork(guitar: .standard).svg
        #expect(svg.hasPrefix("<svg "))
        #expect(svg.hasSuffix("</svg>"))
        #expect(svg.contains(#"aria-label="Natural Casual with Mahogany body and Rosewood fretboard""#))
    }

    @Test func sameGuitarDrawsTheSameBytes() {
        for guitar in Guitar.allConfigurations {
            #expect(GuitarArtwork(guitar: guitar).svg == GuitarArtwork(guitar: guitar).svg)
            #expect(GuitarArtwork(guitar: guitar) == GuitarArtwork(guitar: guitar))
        }
    }

    @Test func everyShapeHasItsOwnBodyOutline() throws {
        var outlines: [Shape: String] = [:]
        for guitar in Guitar.allConfigurations {
            let outline = try #require(try Self.element("outline", of: guitar).attributes["d"])
            #expect(outline.hasPrefix("M"))
            #expect(outline.contains("C"), "bodies are drawn with cubic Bézier curves")
            if let known = outlines[guitar.shape] {
                #expect(known == outline, "the outline follows from the shape alone: \(guitar)")
            }
            outlines[guitar.shape] = outline
        }
        #expect(outlines.count == Shape.allCases.count)
        #expect(Set(outlines.values).count == Shape.allCases.count)
    }

    @Test func everyColourHasItsOwnFinish() throws {
        var finishes: [Color: [String]] = [:]
        for color in Color.allCases {
            let guitar = Guitar(color: color)
            let document = try SVGDocument(GuitarArtwork(guitar: guitar).svg)
            let finishID = GuitarArtwork.idPrefix(for: guitar) + "finish"
            let stops = document.descendants(ofID: finishID).compactMap { $0.attributes["stop-color"] }
            #expect(stops.count >= 3, "a burst needs several stops: \(color)")
            finishes[color] = stops
            let body = document.elements.first { $0.attributes["fill"] == "url(#\(finishID))" }
            #expect(body != nil, "the body is painted with the finish: \(color)")
        }
        #expect(Set(finishes.values).count == Color.allCases.count)
        #expect(Set(finishes.values.compactMap(\.first)).count == Color.allCases.count)
    }

    @Test func everyBodyWoodHasItsOwnFigure() throws {
        var figures: Set<String> = []
        for body in BodyWood.allCases {
            let guitar = Guitar(body: body)
            let document = try SVGDocument(GuitarArtwork(guitar: guitar).svg)
            let prefix = GuitarArtwork.idPrefix(for: guitar)
            let figure = document.descendants(ofID: prefix + "figure")
            #expect(!figure.isEmpty, "\(body) draws a figure")
            let clip = document.ancestors(ofID: prefix + "figure").last { $0.attributes["clip-path"] != nil }
            #expect(clip?.attributes["clip-path"] == "url(#\(prefix)clip)", "the figure stays inside the body")
            let patterns = document.elements.filter { $0.name == "pattern" && $0.attributes["id"] == prefix + "grain" }
            let signature =
                figure.map(\.signature).joined(separator: "|")
                + patterns.flatMap { document.descendants(ofID: $0.attributes["id"] ?? "") }.map(\.signature)
                .joined(separator: "|")
            figures.insert(signature)
        }
        #expect(figures.count == BodyWood.allCases.count)
    }

    @Test func everyFretboardWoodHasItsOwnFill() throws {
        var fills: Set<String> = []
        for fretboard in FretboardWood.allCases {
            let guitar = Guitar(fretboard: fretboard)
            let board = try Self.element("fretboard", of: guitar)
            fills.insert(try #require(board.attributes["fill"]))
        }
        #expect(fills.count == FretboardWood.allCases.count)
        let ebony = try Self.element("fretboard", of: Guitar(fretboard: .ebony)).attributes["fill"]
        let maple = try Self.element("fretboard", of: Guitar(fretboard: .birdseyeMaple)).attributes["fill"]
        #expect(Self.lightness(ebony) < 0.15, "ebony is near black")
        #expect(Self.lightness(maple) > 0.75, "maple is light cream")
    }

    @Test func idsAreUniquePrefixedAndResolved() throws {
        var seen: [String: Guitar] = [:]
        for guitar in Guitar.allConfigurations {
            let svg = GuitarArtwork(guitar: guitar).svg
            let document = try SVGDocument(svg)
            let prefix = GuitarArtwork.idPrefix(for: guitar)
            let ids = document.elements.compactMap { $0.attributes["id"] }
            #expect(Set(ids).count == ids.count, "duplicate id in \(guitar)")
            for id in ids {
                #expect(id.hasPrefix(prefix), "\(id) is not prefixed in \(guitar)")
                #expect(seen[id] == nil, "\(id) is used by \(String(describing: seen[id])) and \(guitar)")
                seen[id] = guitar
            }
            for reference in Self.references(in: svg) {
                #expect(ids.contains(reference), "\(reference) points nowhere in \(guitar)")
            }
        }
    }

    @Test func markupStaysSmallAndInert() {
        for guitar in Guitar.allConfigurations {
            let svg = GuitarArtwork(guitar: guitar).svg
            #expect(svg.utf8.count < 16_000, "\(guitar) is \(svg.utf8.count) bytes")
            for forbidden in ["<script", "javascript:", "onload", "NaN", "inf", "e+", "e-0"] {
                #expect(!svg.contains(forbidden), "\(forbidden) in \(guitar)")
            }
        }
    }

    @Test func fretsCloseUpTowardTheBody() {
        typealias Drawing = GuitarArtwork.Drawing
        let gaps = (1...Drawing.fretCount).map { Drawing.fretY($0) - Drawing.fretY($0 - 1) }
        for (wider, narrower) in zip(gaps, gaps.dropFirst()) {
            #expect(narrower < wider)
        }
        #expect(abs(Drawing.fretY(12) - (Drawing.nutY + Drawing.scaleLength / 2)) < 0.001)
        #expect(Drawing.boardEndY < Drawing.saddleY)
    }

    @Test func numbersAreWrittenWithOneDecimalAtMost() {
        #expect(0.0.svg == "0")
        #expect(12.0.svg == "12")
        #expect(12.34.svg == "12.3")
        #expect(12.36.svg == "12.4")
        #expect((-0.04).svg == "0")
        #expect((-3.25).svg == "-3.3")
        #expect(Double.nan.svg == "0")
    }

    @Test func seededRandomIsRepeatable() {
        var first = SeededRandom(seed: 42)
        var second = SeededRandom(seed: 42)
        let a = (0..<10).map { _ in first.next() }
        let b = (0..<10).map { _ in second.next() }
        #expect(a == b)
        #expect(a.allSatisfy { (0..<1).contains($0) })
        #expect(Set(a).count == a.count)
    }

    // MARK: Helpers

    static func element(_ name: String, of guitar: Guitar) throws -> SVGDocument.Element {
        let document = try SVGDocument(GuitarArtwork(guitar: guitar).svg)
        let id = GuitarArtwork.idPrefix(for: guitar) + name
        return try #require(document.elements.first { $0.attributes["id"] == id }, "no #\(id)")
    }

    /// Every `url(#…)` and `href="#…"` target in the markup.
    static func references(in svg: String) -> [String] {
        var targets: [String] = []
        for marker in ["url(#", "href=\"#"] {
            var rest = svg[...]
            while let range = rest.range(of: marker) {
                rest = rest[range.upperBound...]
                let end = rest.firstIndex { $0 == ")" || $0 == "\"" } ?? rest.endIndex
                targets.append(String(rest[..<end]))
            }
        }
        return targets
    }

    /// Relative lightness of a `#rrggbb` colour, 0 (black) to 1 (white).
    static func lightness(_ hex: String?) -> Double {
        guard let hex, hex.count == 7, let value = Int(hex.dropFirst(), radix: 16) else { return -1 }
        let red = Double((value >> 16) & 0xff)
        let green = Double((value >> 8) & 0xff)
        let blue = Double(value & 0xff)
        return (0.299 * red + 0.587 * green + 0.114 * blue) / 255
    }
}

/// A parsed SVG: its elements in document order, each with its attributes and its parent.
struct SVGDocument {
    struct Element {
        var name: String
        var attributes: [String: String]
        var parent: Int?

        /// Name and attributes in a stable order, to compare drawings.
        var signature: String {
            name + attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        }
    }

    struct ParseError: Error {
        var message: String
    }

    private(set) var elements: [Element]

    init(_ markup: String) throws {
        let collector = Collector()
        let parser = XMLParser(data: Data(markup.utf8))
        parser.delegate = collector
        guard parser.parse() else {
            throw ParseError(message: parser.parserError.map(String.init(describing:)) ?? "unknown XML error")
        }
        elements = collector.elements
    }

    private func index(ofID id: String) -> Int? {
        elements.firstIndex { $0.attributes["id"] == id }
    }

    /// The elements inside the element with `id`, at any depth.
    func descendants(ofID id: String) -> [Element] {
        guard let root = index(ofID: id) else { return [] }
        return elements.indices.filter { isDescendant($0, of: root) }.map { elements[$0] }
    }

    /// The elements that contain the element with `id`, outermost first.
    func ancestors(ofID id: String) -> [Element] {
        guard let start = index(ofID: id) else { return [] }
        var chain: [Element] = []
        var current = elements[start].parent
        while let index = current {
            chain.insert(elements[index], at: 0)
            current = elements[index].parent
        }
        return chain
    }

    private func isDescendant(_ index: Int, of root: Int) -> Bool {
        var current = elements[index].parent
        while let parent = current {
            if parent == root { return true }
            current = elements[parent].parent
        }
        return false
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            elements.append(Element(name: elementName, attributes: attributeDict, parent: open.last))
            open.append(elements.count - 1)
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
        ) {
            open.removeLast()
        }
    }
}
