import Foundation

/// The measurements every part of the picture shares: one unit is about one millimetre of a real
/// guitar, the centre line is x = 200, and frets follow the equal-temperament rule of a 640 mm scale.
extension GuitarArtwork.Drawing {
    static let centerX = 200.0
    static let nutY = 190.0
    static let scaleLength = 640.0
    static let saddleY = nutY + scaleLength
    static let fretCount = 22
    static let boardEndY = fretY(fretCount) + 8

    /// Where fret `number` sits: each fret is 2^(-1/12) of the remaining string closer to the bridge.
    static func fretY(_ number: Int) -> Double {
        nutY + scaleLength * (1 - pow(2, -Double(number) / 12))
    }

    /// Half the width of the fretboard at height `y`: 44 wide at the nut, 58 at the last fret.
    static func neckHalfWidth(at y: Double) -> Double {
        22 + (y - nutY) / (boardEndY - nutY) * 7
    }

    /// Where string `index` (0 = low E, on the left) crosses height `y`, fanning out toward the bridge.
    static func stringX(_ index: Int, at y: Double) -> Double {
        let spacing = 7.2 + (y - nutY) / (saddleY - nutY) * (10.4 - 7.2)
        return centerX + (Double(index) - 2.5) * spacing
    }

    /// The playing surface: a tapered board from the nut to just past the last fret.
    var fretboardOutline: SVGPath {
        let top = Self.nutY
        let bottom = Self.boardEndY
        let topHalf = Self.neckHalfWidth(at: top)
        let bottomHalf = Self.neckHalfWidth(at: bottom)
        var path = SVGPath()
        path.move(Self.centerX - topHalf, top)
        path.line(Self.centerX + topHalf, top)
        path.line(Self.centerX + bottomHalf, bottom)
        if guitar.shape == .chunky || guitar.shape == .longV {
            path.line(Self.centerX - bottomHalf, bottom)
        } else {
            path.curve(
                Self.centerX + bottomHalf * 0.6, bottom + 6, Self.centerX - bottomHalf * 0.6, bottom + 6,
                Self.centerX - bottomHalf, bottom)
        }
        path.close()
        return path
    }

    /// The neck under the fretboard, a little wider, from the headstock into the body.
    var neckOutline: SVGPath {
        let top = Self.nutY - 14
        let bottom = Self.boardEndY + 10
        let topHalf = Self.neckHalfWidth(at: top) + 1.5
        let bottomHalf = Self.neckHalfWidth(at: bottom) + 1.5
        var path = SVGPath()
        path.move(Self.centerX - topHalf, top)
        path.line(Self.centerX + topHalf, top)
        path.line(Self.centerX + bottomHalf, bottom)
        path.line(Self.centerX - bottomHalf, bottom)
        path.close()
        return path
    }
}
