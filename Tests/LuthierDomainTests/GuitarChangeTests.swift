import Testing

@testable import LuthierDomain

@Suite struct GuitarChangeTests {
    @Test func anySubsetOfTheFourFieldsIsAccepted() throws {
        #expect(try GuitarChange(fields: []) == GuitarChange())
        #expect(try GuitarChange(fields: [("shape", "longV")]) == GuitarChange(shape: .longV))
        let all = try GuitarChange(fields: [
            ("shape", "sharpV"), ("color", "dusk"), ("body", "blackLimba"), ("fretboard", "blackLimba"),
        ])
        #expect(all == GuitarChange(shape: .sharpV, color: .dusk, body: .blackLimba, fretboard: .blackLimba))
    }

    @Test(arguments: GuitarField.allCases)
    func everyFieldAcceptsEveryAllowedValueAndRefusesOthers(field: GuitarField) throws {
        for value in field.allowedValues {
            let change = try GuitarChange(fields: [(field.rawValue, value)])
            #expect(Guitar.standard.applying(change).rawValue(of: field) == value)
        }
        for bad in ["", "Casual", "LONGV", "long V", "purple", "<b>", "casual "] {
            #expect(throws: FieldError.invalidValue(field: field, value: bad)) {
                try GuitarChange(fields: [(field.rawValue, bad)])
            }
        }
    }

    @Test func errorMessagesNameTheFieldAndTheAllowedValues() {
        let message = FieldError.invalidValue(field: .shape, value: "round").message
        #expect(message.contains("'shape'"))
        #expect(message.contains("casual, chunky, longV, sharpV"))
        #expect(
            FieldError.invalidValue(field: .fretboard, value: "x").message.contains(
                "rosewood, birdseyeMaple, ebony, blackLimba"))
        #expect(FieldError.unknownField(name: "neck", allowed: ["shape"]).message.contains("'neck'"))
    }

    @Test func unknownAndRepeatedFieldsRefuseTheWholeChange() {
        #expect(throws: FieldError.unknownField(name: "neck", allowed: ["shape", "color", "body", "fretboard"])) {
            try GuitarChange(fields: [("shape", "longV"), ("neck", "maple")])
        }
        #expect(throws: FieldError.duplicateField(name: "color")) {
            try GuitarChange(fields: [("color", "sky"), ("color", "dusk")])
        }
    }
}
