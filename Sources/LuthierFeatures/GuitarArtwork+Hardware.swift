import LuthierDomain

/// The parts that make the drawing read as an instrument: neck, frets, inlays, nut, pickups, bridge,
/// knobs, strings and tuners, each placed by the same geometry as the rest.
extension GuitarArtwork.Drawing {
    var hardwareDefinitions: String {
        ##"<linearGradient id="\##(id("chrome"))" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f7f8fa"/>"##
            + ##"<stop offset=".45" stop-color="#b9bec6"/><stop offset=".55" stop-color="#8c929b"/>"##
            + ##"<stop offset="1" stop-color="#e4e7eb"/></linearGradient>"##
            + ##"<radialGradient id="\##(id("knob"))" cx=".38" cy=".35" r=".7">"##
            + ##"<stop offset="0" stop-color="\##(knobColors.light)"/>"##
            + ##"<stop offset="1" stop-color="\##(knobColors.dark)"/></radialGradient>"##
    }

    private var knobColors: (light: String, dark: String) {
        switch guitar.shape {
        case .casual: ("#fffdf6", "#cfc6b2")
        case .chunky: ("#ffe08a", "#8a5a0c")
        case .longV: ("#5a5a5e", "#0c0c0e")
        case .sharpV: ("#e9ecef", "#555a61")
        }
    }

    /// Sharp V wears black hardware; the others chrome.
    private var metal: String {
        guitar.shape == .sharpV ? "#1b1c1f" : url("chrome")
    }

    // MARK: Neck

    var neckLayers: String {
        let neckWood = guitar.shape == .casual ? "#dcb272" : "#6e3419"
        return ##"<path d="\##(neckOutline.data)" fill="\##(neckWood)" stroke="#1c130c" stroke-opacity=".5"/>"##
            + headstockLayers + headstockDetails + fretboardLayers + inlays + frets + nut
    }

    private var headstockDetails: String {
        switch guitar.shape {
        case .casual:
            // A string tree holding down the two treble strings.
            return ##"<rect x="190" y="88" width="10" height="4" rx="2" fill="\##(metal)"/>"##
        case .chunky, .longV:
            // A bell-shaped truss rod cover.
            return ##"<path d="M191 176C191 160 196 150 200 144C204 150 209 160 209 176Z" fill="#111" "##
                + ##"stroke="#f1ead8" stroke-width="1.2"/>"##
        case .sharpV:
            return ##"<circle cx="200" cy="178" r="3" fill="#111"/>"##
        }
    }

    private var frets: String {
        var wire = SVGPath()
        for number in 1...Self.fretCount {
            let y = Self.fretY(number)
            let half = Self.neckHalfWidth(at: y)
            wire.move(Self.centerX - half, y)
            wire.line(Self.centerX + half, y)
        }
        // The same wire again, thinner, lighter and a touch higher: the crown catching the light.
        return ##"<g stroke="#8f959d" stroke-width="2.4"><path id="\##(id("frets"))" d="\##(wire.data)"/></g>"##
            + ##"<use xlink:href="#\##(id("frets"))" stroke="#f4f6f8" stroke-width=".8" "##
            + ##"transform="translate(0 -.5)"/>"##
    }

    private var inlays: String {
        let marked = [3, 5, 7, 9, 12, 15, 17, 19, 21]
        let fill = guitar.fretboard == .birdseyeMaple ? "#1d1a18" : "#f3eee2"
        let stroke = guitar.fretboard == .birdseyeMaple ? "#000" : "#cfc6b4"
        var marks = ""
        for fret in marked {
            let top = Self.fretY(fret - 1)
            let bottom = Self.fretY(fret)
            let y = (top + bottom) / 2
            if guitar.shape == .chunky {
                // Trapezoid blocks, wider toward the body.
                let half = Self.neckHalfWidth(at: y) - 6
                var block = SVGPath()
                block.move(Self.centerX - half + 2, top + 5)
                block.line(Self.centerX + half, top + 4)
                block.line(Self.centerX + half - 2, bottom - 4)
                block.line(Self.centerX - half, bottom - 5)
                block.close()
                marks += ##"<path d="\##(block.data)"/>"##
            } else if fret == 12 {
                marks +=
                    ##"<circle cx="\##((Self.centerX - 12).svg)" cy="\##(y.svg)" r="4"/>"##
                    + ##"<circle cx="\##((Self.centerX + 12).svg)" cy="\##(y.svg)" r="4"/>"##
            } else {
                marks += ##"<circle cx="\##(Self.centerX.svg)" cy="\##(y.svg)" r="4"/>"##
            }
        }
        return ##"<g fill="\##(fill)" stroke="\##(stroke)" stroke-width=".6">\##(marks)</g>"##
    }

    private var nut: String {
        ##"<rect x="177" y="\##((Self.nutY - 5).svg)" width="46" height="6" rx="1" fill="#f3ecd8" "##
            + ##"stroke="#b9ae93" stroke-width=".8"/>"##
    }

    // MARK: Body hardware

    var electronics: String {
        switch guitar.shape {
        case .casual:
            let guardIsLight = guitar.color == .sky || guitar.color == .dusk
            let cover = guardIsLight ? "#fbf8f0" : "#efe6cf"
            return singleCoil(y: 700, angle: 0, cover: cover) + singleCoil(y: 752, angle: 0, cover: cover)
                + singleCoil(y: 802, angle: 9, cover: cover)
                + ##"<path d="M252 770L268 790" stroke="#222" stroke-width="4" stroke-linecap="round"/>"##
                + ##"<rect x="254" y="776" width="7" height="6" rx="1.5" fill="\##(cover)" stroke="#777" "##
                + ##"transform="rotate(52 257.5 779)"/>"##
                + knobs([(258, 826), (276, 852), (292, 880)], radius: 10)
        case .chunky:
            return humbucker(y: 692, cover: url("chrome"), ring: "#f1ead8", poles: 1)
                + humbucker(y: 792, cover: url("chrome"), ring: "#f1ead8", poles: 1)
                + toggle(x: 98, y: 648) + knobs([(268, 866), (306, 848), (282, 910), (320, 892)], radius: 11)
        case .longV:
            return humbucker(y: 692, cover: "#141414", ring: "#141414", poles: 2)
                + humbucker(y: 792, cover: "#141414", ring: "#141414", poles: 2)
                + toggle(x: 122, y: 770) + knobs([(270, 884), (300, 906), (276, 930)], radius: 10)
        case .sharpV:
            return humbucker(y: 692, cover: "#101010", ring: "#000", poles: 0)
                + humbucker(y: 792, cover: "#101010", ring: "#000", poles: 0)
                + toggle(x: 280, y: 830) + knobs([(292, 884), (314, 920)], radius: 10)
        }
    }

    private func singleCoil(y: Double, angle: Double, cover: String) -> String {
        var poles = SVGPath()
        for index in 0..<6 { poles.dot(Self.stringX(index, at: y), y) }
        let rotation = angle == 0 ? "" : ##" transform="rotate(\##(angle.svg) 200 \##(y.svg))""##
        return ##"<g\##(rotation)><rect x="163" y="\##((y - 9).svg)" width="74" height="18" rx="9" "##
            + ##"fill="\##(cover)" stroke="#8a8272" stroke-width="1"/>\##(Self.poleDots(poles, width: 4.4))</g>"##
    }

    /// Metal pole pieces: a dark rim under a bright top.
    private static func poleDots(_ poles: SVGPath, width: Double) -> String {
        ##"<path d="\##(poles.data)" stroke="#5f646b" stroke-width="\##((width + 1).svg)" stroke-linecap="round"/>"##
            + ##"<path d="\##(poles.data)" stroke="#dfe3e8" stroke-width="\##(width.svg)" stroke-linecap="round"/>"##
    }

    private func humbucker(y: Double, cover: String, ring: String, poles: Int) -> String {
        var screws = SVGPath()
        for row in 0..<poles {
            let rowY = y + (poles == 1 ? -8 : (row == 0 ? -9 : 9))
            for index in 0..<6 { screws.dot(Self.stringX(index, at: y), rowY) }
        }
        let poleGroup =
            poles == 0
            ? ##"<rect x="188" y="\##((y - 2).svg)" width="24" height="4" rx="1" fill="#6b6f75"/>"##
            : Self.poleDots(screws, width: 4.6)
        return ##"<rect x="156" y="\##((y - 26).svg)" width="88" height="52" rx="6" fill="\##(ring)" "##
            + ##"stroke="#000" stroke-opacity=".4"/>"##
            + ##"<rect x="162" y="\##((y - 20).svg)" width="76" height="40" rx="3" fill="\##(cover)" "##
            + ##"stroke="#000" stroke-opacity=".5"/>"## + poleGroup
    }

    private func toggle(x: Double, y: Double) -> String {
        ##"<circle cx="\##(x.svg)" cy="\##(y.svg)" r="10" fill="\##(metal)" stroke="#000" stroke-opacity=".4"/>"##
            + ##"<path d="M\##(x.svg) \##(y.svg)L\##((x + 4).svg) \##((y - 14).svg)" stroke="#e8e2d0" "##
            + ##"stroke-width="3" stroke-linecap="round"/>"##
    }

    private func knobs(_ centers: [(Double, Double)], radius: Double) -> String {
        centers.map { center in
            let (x, y) = center
            return ##"<circle cx="\##((x + 1.5).svg)" cy="\##((y + 2).svg)" r="\##(radius.svg)" fill="#000" "##
                + ##"fill-opacity=".3"/><circle cx="\##(x.svg)" cy="\##(y.svg)" r="\##(radius.svg)" "##
                + ##"fill="\##(url("knob"))" stroke="#000" stroke-opacity=".45"/>"##
                + ##"<circle cx="\##(x.svg)" cy="\##(y.svg)" r="\##((radius * 0.55).svg)" fill="none" "##
                + ##"stroke="#fff" stroke-opacity=".35"/>"##
        }.joined()
    }

    var bridge: String {
        let saddleY = Self.saddleY
        let saddles = (0..<6).map { index in
            ##"<rect x="\##((Self.stringX(index, at: saddleY) - 3.5).svg)" y="\##((saddleY - 5).svg)" "##
                + ##"width="7" height="10" rx="1"/>"##
        }.joined()
        let saddleGroup =
            ##"<g fill="\##(metal)" stroke="#000" stroke-opacity=".45" stroke-width=".6">\##(saddles)</g>"##
        switch guitar.shape {
        case .casual:
            return ##"<rect x="164" y="\##((saddleY - 10).svg)" width="72" height="40" rx="3" fill="\##(metal)" "##
                + ##"stroke="#000" stroke-opacity=".45"/>"## + saddleGroup
                + ##"<path d="M170 \##((saddleY + 24).svg)H230" stroke="#555" stroke-width="2" "##
                + ##"stroke-dasharray="2 10" stroke-linecap="round"/>"##
                + ##"<path d="M240 800L300 830" stroke="#d9dde2" stroke-width="3" stroke-linecap="round"/>"##
        case .chunky, .sharpV, .longV:
            let tail: String
            if guitar.shape == .longV {
                tail =
                    ##"<path d="M174 848H226L214 880H186Z" fill="\##(metal)" stroke="#000" "##
                    + ##"stroke-opacity=".45" stroke-linejoin="round"/>"##
            } else {
                tail =
                    ##"<rect x="168" y="864" width="64" height="12" rx="6" fill="\##(metal)" stroke="#000" "##
                    + ##"stroke-opacity=".45"/><g fill="\##(metal)" stroke="#000" stroke-opacity=".45">"##
                    + ##"<circle cx="168" cy="870" r="7"/><circle cx="232" cy="870" r="7"/></g>"##
            }
            return tail
                + ##"<rect x="164" y="\##((saddleY - 6).svg)" width="72" height="12" rx="5" fill="\##(metal)" "##
                + ##"stroke="#000" stroke-opacity=".45"/>"## + saddleGroup
                + ##"<g fill="\##(metal)" stroke="#000" stroke-opacity=".45"><circle cx="164" cy="\##(saddleY.svg)" "##
                + ##"r="5"/><circle cx="236" cy="\##(saddleY.svg)" r="5"/></g>"##
        }
    }

    // MARK: Strings and tuners

    /// Where each string's tuner post stands on the headstock, low E first.
    private var posts: [(x: Double, y: Double)] {
        switch guitar.shape {
        case .casual:
            [(166, 172), (166, 148), (166, 124), (166, 100), (166, 76), (166, 52)]
        case .chunky:
            [(181, 160), (174, 112), (168, 64), (232, 64), (226, 112), (219, 160)]
        case .longV:
            [(181, 162), (175, 122), (175, 82), (225, 82), (225, 122), (219, 162)]
        case .sharpV:
            [(185, 168), (180, 146), (175, 124), (170, 102), (165, 80), (160, 58)]
        }
    }

    /// Where each tuner's button sits: just outside the headstock's edge, beside its post.
    private func buttonX(post: (x: Double, y: Double), index: Int) -> Double {
        switch guitar.shape {
        case .casual: 138
        case .sharpV: post.x - 26
        case .chunky, .longV: index < 3 ? post.x - 28 : post.x + 28
        }
    }

    var strings: String {
        let end: Double
        switch guitar.shape {
        case .casual: end = Self.saddleY + 22
        case .longV: end = 858
        case .chunky, .sharpV: end = 868
        }
        let widths = [1.7, 1.5, 1.3, 1.1, 0.9, 0.8]
        var shadowPath = SVGPath()
        var lines = ""
        for (index, post) in posts.enumerated() {
            var path = SVGPath()
            path.move(Self.stringX(index, at: end), end)
            path.line(Self.stringX(index, at: Self.saddleY), Self.saddleY)
            path.line(Self.stringX(index, at: Self.nutY), Self.nutY - 2)
            path.line(post.x, post.y)
            shadowPath.move(Self.stringX(index, at: Self.saddleY) + 1.2, Self.saddleY)
            shadowPath.line(Self.stringX(index, at: Self.nutY) + 1.2, Self.nutY)
            let color = index < 3 ? "#cfc7b5" : "#e6e8eb"
            lines += ##"<path d="\##(path.data)" stroke="\##(color)" stroke-width="\##(widths[index].svg)"/>"##
        }
        return ##"<g fill="none" stroke-linecap="round"><path d="\##(shadowPath.data)" stroke="#000" "##
            + ##"stroke-opacity=".28" stroke-width="1.2"/>\##(lines)</g>"##
    }

    var tuners: String {
        var buttons = ""
        var shafts = SVGPath()
        var caps = ""
        for (index, post) in posts.enumerated() {
            let x = buttonX(post: post, index: index)
            shafts.move(post.x, post.y)
            shafts.line(x, post.y)
            buttons += ##"<ellipse cx="\##(x.svg)" cy="\##(post.y.svg)" rx="6.5" ry="9.5"/>"##
            caps += ##"<circle cx="\##(post.x.svg)" cy="\##(post.y.svg)" r="5"/>"##
        }
        return ##"<path d="\##(shafts.data)" stroke="\##(metal)" stroke-width="7"/>"##
            + ##"<g fill="\##(metal)" stroke="#000" stroke-opacity=".5" stroke-width=".8">\##(buttons)\##(caps)</g>"##
            + ##"<g fill="#2a2c30">\##(posts.map { ##"<circle cx="\##($0.x.svg)" cy="\##($0.y.svg)" r="2"/>"## }.joined())</g>"##
    }
}
