import LuthierDomain

/// The woods, told apart by their figure: how the grain reads through the finish, and the
/// colour and texture of the fretboard.
extension GuitarArtwork.Drawing {
    /// Patterns and tints for the body wood's figure.
    var woodDefinitions: String {
        switch guitar.body {
        case .mahogany:
            pattern("grain", width: 90, height: 560, content: Self.straightGrain(seed: 11, width: 90, lines: 20))
                + ##"<linearGradient id="\##(id("ribbon"))" gradientUnits="userSpaceOnUse" x1="0" x2="34" "##
                + ##"y1="0" y2="0" spreadMethod="repeat"><stop offset="0" stop-color="#2a0e04" "##
                + ##"stop-opacity=".16"/><stop offset=".5" stop-color="#fff0dc" stop-opacity=".1"/>"##
                + ##"<stop offset="1" stop-color="#2a0e04" stop-opacity=".16"/></linearGradient>"##
        case .blackLimba:
            pattern("grain", width: 60, height: 560, content: Self.straightGrain(seed: 23, width: 60, lines: 9))
        case .swampAsh:
            ""
        case .koa:
            pattern(
                "grain", width: 96, height: 18,
                content:
                    ##"<path d="M0 5C24 1 40 11 60 7S84 2 96 5V11C80 8 70 15 50 13S16 7 0 11Z" fill="#3a1c06" "##
                    + ##"fill-opacity=".3"/><path d="M0 14C20 12 40 17 62 16S86 13 96 14" fill="none" "##
                    + ##"stroke="#fff6d8" stroke-opacity=".34" stroke-width="3"/>"##,
                transform: "rotate(-7)")
        }
    }

    private func pattern(_ name: String, width: Double, height: Double, content: String, transform: String? = nil)
        -> String
    {
        let patternTransform = transform.map { ##" patternTransform="\##($0)""## } ?? ""
        return ##"<pattern id="\##(id(name))" patternUnits="userSpaceOnUse" x="0" y="440" "##
            + ##"width="\##(width.svg)" height="\##(height.svg)"\##(patternTransform)>\##(content)</pattern>"##
    }

    /// Fine, nearly straight lines down the length of the body, for one pattern tile.
    static func straightGrain(seed: UInt64, width: Double, lines: Int) -> String {
        var random = SeededRandom(seed: seed)
        var thin = SVGPath(wholeNumbers: true)
        var dark = SVGPath(wholeNumbers: true)
        for line in 0..<lines {
            let x = (Double(line) + random.next(in: 0.1...0.9)) * width / Double(lines)
            let drift = random.next(in: -1.5...1.5)
            let points = stride(from: 0.0, through: 560, by: 280).map { y in
                SVGPoint(x + drift * sinApprox(y / 180 + Double(line)), y)
            }
            if line % 3 == 0 { dark.appendSmoothOpen(points) } else { thin.appendSmoothOpen(points) }
        }
        return ##"<path d="\##(thin.data)" fill="none" stroke="#3b1d0c" stroke-opacity=".45" stroke-width=".7"/>"##
            + ##"<path d="\##(dark.data)" fill="none" stroke="#2a1206" stroke-opacity=".55" stroke-width="1.3"/>"##
    }

    /// The figure over the body, drawn inside the body's clip.
    var woodFigure: String {
        switch guitar.body {
        case .mahogany:
            // Tight straight grain over a reddish undertone.
            return ##"<rect x="0" y="440" width="400" height="560" fill="#9c3a1e" fill-opacity=".26" "##
                + ##"class="wood-tint"/>"##
                + ##"<rect x="0" y="440" width="400" height="560" fill="\##(url("ribbon"))"/>"##
                + ##"<rect x="0" y="440" width="400" height="560" fill="\##(url("grain"))" opacity=".7"/>"##
        case .blackLimba:
            // Bold dark streaks wandering down a pale, fine-grained wood.
            return ##"<rect x="0" y="440" width="400" height="560" fill="\##(url("grain"))" opacity=".6"/>"##
                + ##"<rect x="0" y="440" width="400" height="560" fill="#a08850" fill-opacity=".22" "##
                + ##"class="wood-tint"/>"##
                + ##"<path d="\##(Self.limbaStreaks.data)" fill="#24160a" fill-opacity=".5" "##
                + ##"class="wood-tint"/>"##
        case .swampAsh:
            // Wide, open grain that swings across the body.
            let (bold, fine) = Self.ashGrain
            return ##"<path d="\##(bold.data)" fill="none" stroke="#4a2c10" stroke-opacity=".5" stroke-width="2.4"/>"##
                + ##"<path d="\##(fine.data)" fill="none" stroke="#4a2c10" stroke-opacity=".36" stroke-width="1.1"/>"##
        case .koa:
            // Golden warmth with shimmering curl running across the grain.
            return ##"<rect x="0" y="440" width="400" height="560" fill="#b8741e" fill-opacity=".28" "##
                + ##"class="wood-tint"/>"##
                + ##"<rect x="0" y="440" width="400" height="560" fill="\##(url("grain"))"/>"##
                + ##"<path d="\##(Self.koaStreaks.data)" fill="none" stroke="#3a1a06" stroke-opacity=".3" "##
                + ##"stroke-width="3"/>"##
        }
    }

    /// Dark bands of varying width running the length of the body.
    static let limbaStreaks: SVGPath = {
        var random = SeededRandom(seed: 37)
        var path = SVGPath(wholeNumbers: true)
        var x = 24.0
        while x < 380 {
            let bold = random.next() < 0.4
            let width = bold ? random.next(in: 12...30) : random.next(in: 2...6)
            var left: [SVGPoint] = []
            var right: [SVGPoint] = []
            var sway = 0.0
            for step in 0...3 {
                let y = 440 + Double(step) * 187
                sway += random.next(in: -9...9)
                let swell = width * random.next(in: 0.35...1.15)
                left.append(SVGPoint(x + sway, y))
                right.append(SVGPoint(x + sway + swell, y))
            }
            path.appendSmoothOpen(left)
            path.appendSmoothOpen(right.reversed(), connect: true)
            path.close()
            x += width + random.next(in: 10...40)
        }
        return path
    }()

    /// Long wavy lines, thick and thin, spaced wide apart.
    static let ashGrain: (bold: SVGPath, fine: SVGPath) = {
        var random = SeededRandom(seed: 53)
        var bold = SVGPath(wholeNumbers: true)
        var fine = SVGPath(wholeNumbers: true)
        var x = 14.0
        var index = 0
        while x < 390 {
            let amplitude = random.next(in: 8...20)
            let phase = random.next(in: 0...6.28)
            let points = stride(from: 440.0, through: 1000, by: 112).map { y in
                SVGPoint(x + amplitude * sinApprox((y - 440) / 95 + phase), y)
            }
            if index % 2 == 0 { bold.appendSmoothOpen(points) } else { fine.appendSmoothOpen(points) }
            x += random.next(in: 14...30)
            index += 1
        }
        return (bold, fine)
    }()

    /// A few long streaks under the koa curl, so that the figure does not look printed.
    static let koaStreaks: SVGPath = {
        var random = SeededRandom(seed: 71)
        var path = SVGPath(wholeNumbers: true)
        var x = 30.0
        while x < 380 {
            let points = stride(from: 440.0, through: 1000, by: 140).map { y in
                SVGPoint(x + random.next(in: -6...6), y)
            }
            path.appendSmoothOpen(points)
            x += random.next(in: 30...70)
        }
        return path
    }()

    /// sin(x) for the grain, through a series so that it never depends on the platform's libm.
    static func sinApprox(_ value: Double) -> Double {
        let twoPi = 6.283185307179586
        var x = value.truncatingRemainder(dividingBy: twoPi)
        if x > twoPi / 2 { x -= twoPi }
        if x < -twoPi / 2 { x += twoPi }
        let x2 = x * x
        return x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110)))))
    }

    // MARK: Fretboard

    /// The colour of the fretboard wood under its texture.
    static func fretboardBase(_ wood: FretboardWood) -> String {
        switch wood {
        case .rosewood: "#4e2616"
        case .birdseyeMaple: "#eed8a8"
        case .ebony: "#141010"
        case .blackLimba: "#5a4d40"
        }
    }

    var fretboardDefinitions: String {
        let content: String
        switch guitar.fretboard {
        case .rosewood:
            content = Self.boardLines(seed: 5, dark: "#250c04", light: "#7a3a20", opacity: ".5")
        case .birdseyeMaple:
            content =
                Self.boardLines(seed: 9, dark: "#b08850", light: "#fff4d8", opacity: ".35")
                + Self.birdsEyes
        case .ebony:
            content = Self.boardLines(seed: 13, dark: "#000", light: "#3a322c", opacity: ".5")
        case .blackLimba:
            content =
                Self.boardLines(seed: 17, dark: "#1e1710", light: "#7a6a58", opacity: ".6")
                + ##"<path d="M12 0C16 60 8 120 14 160H22C16 120 24 60 18 0ZM40 0C42 50 36 110 42 160H46C40 110 46 50 44 0Z" "##
                + ##"fill="#1a130c" fill-opacity=".6"/>"##
        }
        return ##"<pattern id="\##(id("board"))" patternUnits="userSpaceOnUse" x="171" y="190" width="58" "##
            + ##"height="160">\##(content)</pattern>"##
    }

    /// Streaks along the fretboard, dark and light.
    static func boardLines(seed: UInt64, dark: String, light: String, opacity: String) -> String {
        var random = SeededRandom(seed: seed)
        var darkPath = SVGPath(wholeNumbers: true)
        var lightPath = SVGPath(wholeNumbers: true)
        for line in 0..<9 {
            let x = Double(line) * 6.4 + random.next(in: 0.5...5.5)
            let points = [SVGPoint(x, 0), SVGPoint(x + random.next(in: -1...1), 80), SVGPoint(x, 160)]
            if line % 2 == 0 { darkPath.appendSmoothOpen(points) } else { lightPath.appendSmoothOpen(points) }
        }
        return ##"<path d="\##(darkPath.data)" fill="none" stroke="\##(dark)" stroke-opacity="\##(opacity)"/>"##
            + ##"<path d="\##(lightPath.data)" fill="none" stroke="\##(light)" stroke-opacity="\##(opacity)" "##
            + ##"stroke-width=".6"/>"##
    }

    /// Small "eyes" scattered over maple: a dark dot in a light ring.
    static let birdsEyes: String = {
        var random = SeededRandom(seed: 29)
        var eyes = SVGPath(wholeNumbers: true)
        for _ in 0..<14 {
            eyes.dot(random.next(in: 3...55), random.next(in: 4...156))
        }
        return ##"<path d="\##(eyes.data)" stroke="#fff6e0" stroke-width="4" stroke-linecap="round"/>"##
            + ##"<path d="\##(eyes.data)" stroke="#9a6a30" stroke-opacity=".7" stroke-width="2.4" "##
            + ##"stroke-linecap="round"/>"##
    }()

    /// The fretboard: wood colour, then texture.
    var fretboardLayers: String {
        let outline = fretboardOutline.data
        return ##"<path id="\##(id("fretboard"))" d="\##(outline)" fill="\##(Self.fretboardBase(guitar.fretboard))"/>"##
            + ##"<path d="\##(outline)" fill="\##(url("board"))"/>"##
    }
}
