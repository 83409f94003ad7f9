import Testing

@testable import ServerMachinery

@Suite("URLEncodedForm")
struct URLEncodedFormTests {
    static func pairs(_ body: String) throws -> [[String]] {
        try URLEncodedForm.parse(body).map { [$0.name, $0.value] }
    }

    @Test("names and values in order, decoded")
    func decoding() throws {
        #expect(try Self.pairs("shape=longV&color=sky") == [["shape", "longV"], ["color", "sky"]])
        #expect(try Self.pairs("a=1+2&b=%2B%26%3D%25") == [["a", "1 2"], ["b", "+&=%"]])
        #expect(try Self.pairs("n%61me=v%C3%A9") == [["name", "vé"]])
        #expect(try Self.pairs("x=%e2%82%ac") == [["x", "€"]])
        #expect(try Self.pairs("a=b=c") == [["a", "b=c"]])
        #expect(try Self.pairs("flag") == [["flag", ""]])
        #expect(try Self.pairs("flag=") == [["flag", ""]])
        #expect(try Self.pairs("a=1&a=2") == [["a", "1"], ["a", "2"]])
    }

    @Test("empty bodies and empty pairs are nothing")
    func empty() throws {
        #expect(try Self.pairs("").isEmpty)
        #expect(try Self.pairs("&&").isEmpty)
        #expect(try Self.pairs("&shape=chunky&") == [["shape", "chunky"]])
    }

    @Test(
        "malformed input is refused, not guessed at",
        arguments: [
            "%", "a=%", "a=%4", "a=%4G", "a=%G4", "%zz=1", "a=%%41", "=v", "=", "a=1&=2", "a=%FF", "a=%C3", "a=%C3%28",
        ]
    )
    func malformed(_ body: String) {
        #expect(throws: MalformedForm.self) { try URLEncodedForm.parse(body) }
        do {
            _ = try URLEncodedForm.parse(body)
        } catch {
            #expect(error.message.hasPrefix("The form could not be read: "))
        }
    }

    @Test("bytes must be UTF-8")
    func bytes() throws {
        #expect(try URLEncodedForm.parse(bytes: Array("a=é".utf8)).first?.value == "é")
        #expect(throws: MalformedForm(reason: "the body is not UTF-8")) {
            try URLEncodedForm.parse(bytes: [0x61, 0x3D, 0xFF])
        }
        #expect(throws: MalformedForm(reason: "the body is not UTF-8")) {
            try URLEncodedForm.parse(bytes: [0x61, 0x3D, 0xED, 0xA0, 0x80])
        }
    }
}
