import LuthierDomain

/// The colour of the finish: a burst from a bright centre to darker edges, as a sprayed finish looks.
extension GuitarArtwork.Drawing {
    /// Colour stops from the centre of the burst to the edge of the body.
    static func finishStops(_ color: Color) -> [(offset: Double, color: String)] {
        switch color {
        case .natural:
            [(0, "#f7dfa8"), (0.5, "#eec27a"), (0.8, "#d39a4f"), (0.94, "#a8682c"), (1, "#7c4a1e")]
        case .sky:
            [(0, "#eaf7ff"), (0.45, "#b4e0fa"), (0.78, "#7cc2ec"), (0.93, "#4f9bd3"), (1, "#2f6ea6")]
        case .dusk:
            [(0, "#ffd97e"), (0.3, "#ff9a45"), (0.55, "#e8586a"), (0.78, "#a2348e"), (0.93, "#5b1f73"), (1, "#2e0f45")]
        case .earth:
            [(0, "#c8b078"), (0.4, "#9a8246"), (0.7, "#6f5a2c"), (0.9, "#4a3619"), (1, "#2c1f0f")]
        }
    }

    /// The colour a wood shows through the finish: laid over the burst, multiplied.
    var finishDefinitions: String {
        let stops = Self.finishStops(guitar.color)
            .map { ##"<stop offset="\##($0.offset.svg)" stop-color="\##($0.color)"/>"## }
            .joined()
        let burst = burst
        return ##"<radialGradient id="\##(id("finish"))" gradientUnits="userSpaceOnUse" "##
            + ##"cx="\##(burst.x.svg)" cy="\##(burst.y.svg)" r="\##(burst.radius.svg)" fx="\##(burst.x.svg)" "##
            + ##"fy="\##((burst.y + 30).svg)">\##(stops)</radialGradient>"##
            + ##"<linearGradient id="\##(id("headstock"))" x1="0" y1="1" x2="0.3" y2="0">\##(stops)</linearGradient>"##
            + ##"<linearGradient id="\##(id("gloss"))" x1="0" y1="0" x2="1" y2="0.2">"##
            + ##"<stop offset="0" stop-color="#fff" stop-opacity="0"/>"##
            + ##"<stop offset=".3" stop-color="#fff" stop-opacity=".28"/>"##
            + ##"<stop offset=".42" stop-color="#fff" stop-opacity="0"/></linearGradient>"##
    }

    /// Body: burst, wood figure, edge shading, a glossy highlight, and the edge itself.
    var bodyLayers: String {
        let outline = ##"xlink:href="#\##(id("outline"))""##
        let edge =
            guitar.shape == .chunky
            ? ##"<use \##(outline) fill="none" stroke="#f1e6cc" stroke-width="3.2"/>"##
                + ##"<use \##(outline) fill="none" stroke="#3a2a1a" stroke-opacity=".5" stroke-width=".8"/>"##
            : ##"<use \##(outline) fill="none" stroke="#1c130c" stroke-opacity=".55" stroke-width="1.4"/>"##
        return ##"<use \##(outline) fill="\##(url("finish"))"/>"##
            + ##"<g clip-path="\##(url("clip"))"><g id="\##(id("figure"))"\##(figureOpacity)>"## + woodFigure + "</g>"
            + ##"<use \##(outline) fill="none" stroke="#1a0f08" stroke-opacity=".22" stroke-width="26"/>"##
            + ##"<use \##(outline) fill="none" stroke="#1a0f08" stroke-opacity=".2" stroke-width="10"/>"##
            + ##"<use \##(outline) fill="none" stroke="#fff" stroke-opacity=".18" stroke-width="3" "##
            + ##"transform="translate(-1.5 -2)"/>"##
            + ##"<rect x="0" y="440" width="400" height="560" fill="\##(url("gloss"))"/>"##
            + "</g>" + edge
    }

    /// A pale opaque-looking colour lets less of the wood's own tone through, or sky blue would turn grey.
    private var figureOpacity: String {
        guitar.color == .sky ? ##" opacity=".6""## : ""
    }

    /// The headstock face in the body's finish, as a custom shop would match it.
    var headstockLayers: String {
        ##"<use xlink:href="#\##(id("head"))" fill="\##(url("headstock"))" stroke="#1c130c" "##
            + ##"stroke-opacity=".6" stroke-width="1.2"/>"##
    }

    var pickguard: String {
        guard let outline = pickguardOutline else { return "" }
        let fill: String
        switch guitar.color {
        case .natural, .earth: fill = "#1b1714"
        case .sky, .dusk: fill = "#f4efe3"
        }
        return ##"<path d="\##(outline.data)" fill="\##(fill)" stroke="#000" stroke-opacity=".35" "##
            + ##"stroke-width="1.2"/>"##
    }
}
