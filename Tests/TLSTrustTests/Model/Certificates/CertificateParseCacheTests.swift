import Foundation
@testable import TLSTrustCore
@testable import TLSTrustDecisions
@testable import TLSTrustConnections
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// The hot-path caches below the engine: parsed certificates by DER, imported keys by
/// SPKI, and the parser's fast paths, which must give exactly what the general code gives.
@Suite("Parse cache and parser fast paths", .serialized)
struct CertificateParseCacheTests {
    @Test("the same DER parsed twice shares one parse; equal, same hash")
    func reparsingSharesStorage() throws {
        let h = try TestHierarchy.make()
        let a = try Certificate(derEncoded: h.leaf.der)
        let b = try Certificate(derEncoded: Array(h.leaf.der))
        #expect(a.storage === b.storage)
        #expect(a == b && a.hashValue == b.hashValue)
    }

    @Test("switched off, every parse is fresh and still equal by DER")
    func switchedOff() throws {
        let h = try TestHierarchy.make()
        CertificateParseCache.isEnabled = false
        defer { CertificateParseCache.isEnabled = true }
        let a = try Certificate(derEncoded: h.leaf.der)
        let b = try Certificate(derEncoded: h.leaf.der)
        #expect(a.storage !== b.storage)
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != h.intermediate.certificate)
    }

    @Test("malformed DER is refused every time, never cached")
    func malformedIsNeverCached() throws {
        let h = try TestHierarchy.make()
        var bad = h.leaf.der
        bad.append(0)
        for _ in 0..<2 {
            #expect(throws: TLSTrustError(.malformedCertificate, "")) { try Certificate(derEncoded: bad) }
        }
    }

    @Test("bounded: at most `capacity` parses are kept")
    func bounded() throws {
        let restore = setTemporarily(\CertificateParseCache.Type.capacity, to: 2)
        defer { restore() }
        let h = try TestHierarchy.make()
        for c in [h.leaf, h.intermediate, h.root] { _ = try Certificate(derEncoded: c.der) }
        #expect(CertificateParseCache.count <= 2)
    }

    @Test("a key imported for one certificate is reused for another certificate with the same key")
    func keysReusedAcrossCertificates() throws {
        let h = try TestHierarchy.make()
        let twin = try TestPKI.issue(TestHierarchy.intermediateProfile(), subjectKey: h.intermediate.privateKey, issuer: h.root)
        let backend = OpenSSLTrustBackend()
        let a = try h.intermediate.certificate.verificationKey(for: backend)
        let b = try twin.certificate.verificationKey(for: backend)
        #expect(a === b)
    }

    @Test("every OID in the table decodes to the same text through the general decoder")
    func knownOIDTableMatchesDecoder() throws {
        for oid in KnownOID.dotted {
            let contents = KnownOID.encode(oid)
            let der: [UInt8] = [0x06, UInt8(contents.count)] + contents
            let node = DERNode(identifier: 0x06, contents: 2..<der.count, encoded: 0..<der.count)
            #expect(try node.objectIdentifier(in: der) == oid)
            #expect(KnownOID.lookup(der, node.contents) == oid)
            // The general path, with the table bypassed (a copy with a changed last arc, then back).
            var other = contents
            other[other.count - 1] ^= 0x01
            let otherDER: [UInt8] = [0x06, UInt8(other.count)] + other
            let otherNode = DERNode(identifier: 0x06, contents: 2..<otherDER.count, encoded: 0..<otherDER.count)
            let decoded = try otherNode.objectIdentifier(in: otherDER)
            #expect(KnownOID.encode(decoded) == other, "\(oid) → \(decoded)")
        }
        // Non-minimal and truncated encodings are still refused.
        let nonMinimal: [UInt8] = [0x06, 0x03, 0x55, 0x80, 0x03]
        #expect(throws: DERError.self) { try DERNode(identifier: 6, contents: 2..<5, encoded: 0..<5).objectIdentifier(in: nonMinimal) }
        let truncated: [UInt8] = [0x06, 0x02, 0x55, 0x81]
        #expect(throws: DERError.self) { try DERNode(identifier: 6, contents: 2..<4, encoded: 0..<4).objectIdentifier(in: truncated) }
    }

    @Test("the ASCII fold gives what the general fold gives")
    func asciiFoldMatchesGeneralFold() {
        var samples = ["", " ", "Example CA", "  EXAMPLE \t\r\n CA  ", "a\u{0B}b\u{0C}c", "x\u{1C}y\u{1F}z", "A-Z_a-z 0-9", "\r\n", "café CA"]
        samples += (0..<128).map { "a\(Character(Unicode.Scalar(UInt8($0))))B" }
        for s in samples {
            #expect(NormalizedName.Value.fold(s) == NormalizedName.Value.foldGeneral(s), "\(Array(s.unicodeScalars))")
            if let ascii = NormalizedName.Value.foldASCII(s) {
                #expect(ascii == NormalizedName.Value.foldGeneral(s), "\(Array(s.unicodeScalars))")
            }
        }
    }
}
