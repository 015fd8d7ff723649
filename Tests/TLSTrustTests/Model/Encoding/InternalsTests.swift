@testable import TLSTrustCore
@testable import TLSTrustDecisions
@testable import TLSTrustConnections
import TLSTrust
import Testing

/// Access to internal primitives for known-answer tests.
enum SHA256Vectors {
    static func hex(_ text: String) -> String { SHA256.hash(Array(text.utf8)).map { String(format2: $0) }.joined() }
}

@Suite("Encoding primitives")
struct EncodingPrimitiveTests {
    @Test func base64RoundTripsEveryLengthAndRefusesGarbage() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64.decode(Array(Base64.encode(bytes).utf8)) == bytes)
        }
        #expect(Base64.decode(Array("QUJD".utf8)) == Array("ABC".utf8))
        #expect(Base64.decode(Array("QU\nJD\n".utf8)) == Array("ABC".utf8))
        #expect(Base64.decode(Array("QUJ".utf8)) == nil)
        #expect(Base64.decode(Array("Q=JD".utf8)) == nil)
        #expect(Base64.decode(Array("QUJD=".utf8)) == nil)
        #expect(Base64.decode(Array("QU=D".utf8)) == nil)
        #expect(Base64.decode(Array("QU!D".utf8)) == nil)
    }

    @Test func derReaderRefusesNonMinimalLengths() {
        var r = DERReader([0x04, 0x81, 0x01, 0xAA])
        #expect(throws: DERError.self) { try r.readAny() }
        var ok = DERReader([0x04, 0x01, 0xAA])
        #expect((try? ok.readAny())?.contents == 2..<3)
    }

    @Test func validityTimeDecodesBothForms() throws {
        let utc = Array("491231235959Z".utf8)
        let gen = Array("20500101000000Z".utf8)
        let d1 = try ValidityTime.decode([0x17, UInt8(utc.count)] + utc, DERNode(identifier: 0x17, contents: 2..<(2 + utc.count), encoded: 0..<(2 + utc.count)))
        let d2 = try ValidityTime.decode([0x18, UInt8(gen.count)] + gen, DERNode(identifier: 0x18, contents: 2..<(2 + gen.count), encoded: 0..<(2 + gen.count)))
        #expect(d1.timeIntervalSince1970 == 2_524_607_999)
        #expect(d2.timeIntervalSince1970 == 2_524_608_000)
    }
}
