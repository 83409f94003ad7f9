import Testing

@testable import LuthierDomain

@Suite struct GuitarTests {
    /// The price table from DESIGN.md, restated independently of the enums under test.
    static let surcharges: [String: Int] = [
        "casual": 0, "chunky": 0, "longV": 75, "sharpV": 100,
        "natural": 0, "sky": 150, "dusk": 0, "earth": 50,
        "mahogany": 0, "body.blackLimba": 150, "swampAsh": 80, "koa": 100,
        "rosewood": 0, "birdseyeMaple": 80, "ebony": 100, "fretboard.blackLimba": 120,
    ]
    static let names: [String: String] = [
        "casual": "Casual", "chunky": "Chunky", "longV": "Long V", "sharpV": "Sharp V",
        "natural": "Natural", "sky": "Sky", "dusk": "Dusk", "earth": "Earth",
        "mahogany": "Mahogany", "blackLimba": "Black Limba", "swampAsh": "Swamp Ash", "koa": "Koa",
        "rosewood": "Rosewood", "birdseyeMaple": "Birdseye Maple", "ebony": "Ebony",
    ]

    static func surcharge(body: String) -> Int { surcharges[body == "blackLimba" ? "body.blackLimba" : body] ?? -1 }
    static func surcharge(fretboard: String) -> Int {
        surcharges[fretboard == "blackLimba" ? "fretboard.blackLimba" : fretboard] ?? -1
    }

    @Test func optionsAreListedInDisplayOrderWithTheFirstAsDefault() {
        #expect(Shape.allCases.map(\.rawValue) == ["casual", "chunky", "longV", "sharpV"])
        #expect(Color.allCases.map(\.rawValue) == ["natural", "sky", "dusk", "earth"])
        #expect(BodyWood.allCases.map(\.rawValue) == ["mahogany", "blackLimba", "swampAsh", "koa"])
        #expect(FretboardWood.allCases.map(\.rawValue) == ["rosewood", "birdseyeMaple", "ebony", "blackLimba"])
        #expect(Guitar.standard == Guitar(shape: .casual, color: .natural, body: .mahogany, fretboard: .rosewood))
    }

    @Test func everyOneOfThe256CombinationsIsPricedAndDescribed() {
        let all = Guitar.allConfigurations
        #expect(all.count == 256)
        #expect(Set(all).count == 256)
        var seenPrices: Set<Int> = []
        for guitar in all {
            let additions =
                (Self.surcharges[guitar.shape.rawValue] ?? -1) + (Self.surcharges[guitar.color.rawValue] ?? -1)
                + Self.surcharge(body: guitar.body.rawValue) + Self.surcharge(fretboard: guitar.fretboard.rawValue)
            #expect(guitar.additions == .dollars(additions), "\(guitar)")
            #expect(guitar.price == .dollars(2000 + additions), "\(guitar)")
            let expected =
                "\(Self.names[guitar.color.rawValue] ?? "?") \(Self.names[guitar.shape.rawValue] ?? "?") with "
                + "\(Self.names[guitar.body.rawValue] ?? "?") body and \(Self.names[guitar.fretboard.rawValue] ?? "?") fretboard"
            #expect(guitar.description == expected)
            seenPrices.insert(guitar.price.roundedMajorUnits)
        }
        #expect(seenPrices.min() == 2000)
        #expect(seenPrices.max() == 2520)
    }

    @Test func theDefaultGuitarReadsAsTheOriginalApp() {
        #expect(Guitar.standard.description == "Natural Casual with Mahogany body and Rosewood fretboard")
        #expect(Guitar.standard.price.formatted() == "$2,000")
        #expect(Guitar.standard.additions.isZero)
    }

    @Test func pricedNamesShowOnlyRealSurcharges() {
        #expect(Shape.longV.pricedName == "Long V (+$75)")
        #expect(Shape.casual.pricedName == "Casual")
        #expect(Color.sky.pricedName == "Sky (+$150)")
        #expect(BodyWood.blackLimba.pricedName == "Black Limba (+$150)")
        #expect(FretboardWood.blackLimba.pricedName == "Black Limba (+$120)")
        #expect(FretboardWood.rosewood.pricedName == "Rosewood")
    }

    @Test func applyingAChangeReplacesOnlyTheNamedFields() {
        let changed = Guitar.standard.applying(GuitarChange(shape: .longV, fretboard: .ebony))
        #expect(changed == Guitar(shape: .longV, color: .natural, body: .mahogany, fretboard: .ebony))
        #expect(Guitar.standard.applying(GuitarChange()) == .standard)
        #expect(changed.rawValue(of: .shape) == "longV")
        #expect(changed.rawValue(of: .fretboard) == "ebony")
    }

    @Test func shippingMethodsAreListedAsTheOriginalApp() {
        #expect(ShippingMethod.allCases.map(\.name) == ["Pickup", "Ground", "Express"])
        #expect(ShippingMethod.allCases.map(\.deliveryTime) == ["As soon as ready", "2-6 weeks", "1 week"])
        #expect(ShippingMethod.allCases.map { $0.price.formattedOrFree() } == ["Free", "$100", "$250"])
    }
}
