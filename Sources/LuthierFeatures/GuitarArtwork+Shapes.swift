import LuthierDomain

/// The outlines that make each shape recognisable: body, headstock and pickguard.
extension GuitarArtwork.Drawing {
    /// The body's edge as one closed path of cubic Bézier segments.
    var bodyOutline: SVGPath {
        SVGPath.smoothClosed(Self.bodyPoints(guitar.shape))
    }

    /// The points each body outline passes through, clockwise from under the neck.
    static func bodyPoints(_ shape: Shape) -> [SVGPoint] {
        switch shape {
        case .casual:
            // Offset double cutaway: a long bass horn, a shorter treble horn, a contoured waist.
            return [
                SVGPoint(200, 590), SVGPoint(172, 590), SVGPoint(160, 582), SVGPoint(154, 564),
                SVGPoint(152, 540), SVGPoint(148, 518), SVGPoint(138, 504), SVGPoint(122, 504),
                SVGPoint(106, 518), SVGPoint(92, 546), SVGPoint(76, 588), SVGPoint(58, 636),
                SVGPoint(48, 692), SVGPoint(58, 752), SVGPoint(50, 808), SVGPoint(44, 864),
                SVGPoint(58, 922), SVGPoint(106, 962), SVGPoint(200, 976), SVGPoint(294, 962),
                SVGPoint(342, 922), SVGPoint(356, 864), SVGPoint(350, 808), SVGPoint(340, 756),
                SVGPoint(348, 700), SVGPoint(340, 648), SVGPoint(320, 602), SVGPoint(298, 566),
                SVGPoint(280, 542), SVGPoint(264, 538), SVGPoint(254, 550), SVGPoint(251, 570),
                SVGPoint(248, 584), SVGPoint(236, 591),
            ]
        case .chunky:
            // Single cutaway: a full rounded bass shoulder, a short pointed treble horn, a broad lower bout.
            return [
                SVGPoint(200, 606), SVGPoint(168, 605), SVGPoint(138, 610), SVGPoint(110, 624),
                SVGPoint(88, 648), SVGPoint(74, 680), SVGPoint(70, 720), SVGPoint(62, 772),
                SVGPoint(44, 832), SVGPoint(40, 892), SVGPoint(66, 946), SVGPoint(126, 978),
                SVGPoint(200, 988), SVGPoint(274, 978), SVGPoint(334, 946), SVGPoint(360, 892),
                SVGPoint(356, 832), SVGPoint(338, 772), SVGPoint(330, 722), SVGPoint(324, 680),
                SVGPoint(308, 640), SVGPoint(288, 608), SVGPoint(270, 586), SVGPoint(258, 576),
                SVGPoint(250, 582), SVGPoint(248, 596), SVGPoint(240, 606),
            ]
        case .longV:
            // Two long straight-sided wings meeting in a deep V, with rounded square tips.
            let left = [
                SVGPoint(174, 574), SVGPoint(150, 598), SVGPoint(114, 690), SVGPoint(74, 810),
                SVGPoint(40, 946), SVGPoint(42, 982), SVGPoint(70, 986), SVGPoint(130, 942),
                SVGPoint(182, 905),
            ]
            return [SVGPoint(200, 566)] + left + [SVGPoint(200, 892, sharp: true)]
                + left.reversed().map { $0.mirrored() }
        case .sharpV:
            // An offset, angular V: horns and wings all end in sharp points.
            return [
                SVGPoint(200, 600), SVGPoint(170, 598), SVGPoint(142, 576), SVGPoint(110, 520, sharp: true),
                SVGPoint(108, 600), SVGPoint(92, 700), SVGPoint(24, 930, sharp: true), SVGPoint(92, 914),
                SVGPoint(214, 868, sharp: true), SVGPoint(290, 934), SVGPoint(372, 996, sharp: true),
                SVGPoint(332, 880), SVGPoint(302, 720), SVGPoint(306, 600), SVGPoint(326, 470, sharp: true),
                SVGPoint(272, 540), SVGPoint(236, 600),
            ]
        }
    }

    /// Where the sunburst is brightest and how far it reaches, per body.
    var burst: (x: Double, y: Double, radius: Double) {
        switch guitar.shape {
        case .casual: (196, 790, 210)
        case .chunky: (200, 800, 220)
        case .longV: (200, 780, 240)
        case .sharpV: (196, 760, 250)
        }
    }

    /// The headstock face, matched to the body style.
    var headstockOutline: SVGPath {
        SVGPath.smoothClosed(headstockPoints)
    }

    var headstockPoints: [SVGPoint] {
        let neckTop = Self.nutY + 2
        switch guitar.shape {
        case .casual:
            // Six in line on the bass side, a rounded paddle at the tip.
            return [
                SVGPoint(178, neckTop, sharp: true), SVGPoint(176, 176), SVGPoint(158, 156),
                SVGPoint(150, 110), SVGPoint(150, 56), SVGPoint(160, 26), SVGPoint(190, 18),
                SVGPoint(230, 24), SVGPoint(246, 40), SVGPoint(238, 60), SVGPoint(224, 84),
                SVGPoint(222, 150), SVGPoint(222, neckTop, sharp: true),
            ]
        case .chunky:
            // Three a side, widening to an open-book top.
            let left = [
                SVGPoint(178, neckTop, sharp: true), SVGPoint(170, 150), SVGPoint(160, 80),
                SVGPoint(156, 40), SVGPoint(166, 22), SVGPoint(186, 26),
            ]
            return left + [SVGPoint(200, 32, sharp: true)] + left.reversed().map { $0.mirrored() }
        case .longV:
            // Three a side, tapering to a pointed tip.
            let left = [
                SVGPoint(178, neckTop, sharp: true), SVGPoint(166, 150), SVGPoint(158, 90),
                SVGPoint(166, 50), SVGPoint(188, 26),
            ]
            return left + [SVGPoint(200, 14, sharp: true)] + left.reversed().map { $0.mirrored() }
        case .sharpV:
            // Six in line, drooping to a hooked point.
            return [
                SVGPoint(178, neckTop, sharp: true), SVGPoint(172, 170), SVGPoint(156, 120),
                SVGPoint(146, 60), SVGPoint(132, 14, sharp: true), SVGPoint(176, 50), SVGPoint(210, 120),
                SVGPoint(222, 160), SVGPoint(222, neckTop, sharp: true),
            ]
        }
    }

    /// The pickguard, where the style has one.
    var pickguardOutline: SVGPath? {
        switch guitar.shape {
        case .casual:
            SVGPath.smoothClosed([
                SVGPoint(166, 598), SVGPoint(150, 584), SVGPoint(140, 556), SVGPoint(124, 546),
                SVGPoint(106, 572), SVGPoint(90, 616), SVGPoint(78, 668), SVGPoint(78, 722),
                SVGPoint(90, 772), SVGPoint(108, 812), SVGPoint(140, 842), SVGPoint(200, 858),
                SVGPoint(240, 876), SVGPoint(270, 900), SVGPoint(300, 894), SVGPoint(312, 860),
                SVGPoint(306, 814), SVGPoint(306, 768), SVGPoint(316, 720), SVGPoint(308, 670),
                SVGPoint(288, 632), SVGPoint(264, 610), SVGPoint(240, 600),
            ])
        case .longV:
            SVGPath.smoothClosed([
                SVGPoint(200, 582), SVGPoint(156, 624), SVGPoint(120, 720), SVGPoint(110, 790),
                SVGPoint(142, 820), SVGPoint(200, 848, sharp: true), SVGPoint(258, 820),
                SVGPoint(290, 790), SVGPoint(280, 720), SVGPoint(244, 624),
            ])
        case .chunky, .sharpV:
            nil
        }
    }
}
