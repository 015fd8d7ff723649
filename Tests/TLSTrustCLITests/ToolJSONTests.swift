import Foundation
import Testing
import TLSTrust
import TLSTrustTesting
import TLSTrustToolSupport
@testable import tlstrust

/// The shared JSON writer's conventions and the recogniser of non-certificate inputs, in process.
@Suite("ToolJSON and the recognition of what a file holds")
struct ToolJSONTests {
    @Test("hex is written one way: uppercase, two digits a byte, colon-separated, whatever form it came in")
    func hexOneWay() {
        #expect(ToolJSON.hex([0x00, 0x0A, 0xFF]) == "00:0A:FF")
        #expect(ToolJSON.hex([]) == "")
        #expect(ToolJSON.hex(normalizing: "2e:38:0a") == "2E:38:0A")
        #expect(ToolJSON.hex(normalizing: "85c7bb97") == "85:C7:BB:97")
        #expect(ToolJSON.hex(normalizing: "E0:77") == "E0:77")
        #expect(ToolJSON.hex(normalizing: "abc") == "0A:BC", "an odd digit count is read as a number: a leading zero")
        #expect(ToolJSON.hex(normalizing: "") == "")
    }

    @Test("the error document: schemaVersion, error.exitStatus, error.message, control characters escaped")
    func errorDocument() throws {
        let text = ToolJSON.error("bad \u{1B}[2J\u{9B}x", exitStatus: 3)
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B }, "\(text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["schemaVersion"] as? Int == ToolJSON.schemaVersion)
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["exitStatus"] as? Int == 3 && error["message"] as? String == "bad \u{1B}[2J\u{9B}x", "the exact text, decoded")
    }

    @Test("revocation sources are camelCase, like failure codes")
    func revocationSourceNames() {
        #expect(ToolJSON.name(.stapledOCSPResponse) == "stapledOCSPResponse")
        #expect(ToolJSON.name(.ocspResponse) == "ocspResponse")
        #expect(ToolJSON.name(.fetchedCRL) == "fetchedCRL")
        #expect(ToolJSON.name(.crl) == "crl")
    }

    @Test("a .p12 is recognised; a certificate, garbage and every truncation of the archive never crash the recogniser")
    func pkcs12Recognition() throws {
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: "s3cret")
        #expect(OtherInput.isPKCS12(p12))
        #expect(!OtherInput.isPKCS12(pki.leaf.certificate.derEncoded))
        #expect(!OtherInput.isPKCS12(Array("-----BEGIN CERTIFICATE-----\n".utf8)))
        for length in 0..<min(p12.count, 64) {
            _ = OtherInput.isPKCS12(Array(p12.prefix(length)))
            _ = OtherInput.recognise(Array(p12.prefix(length)))
        }
        // A length byte that claims more than there is.
        #expect(!OtherInput.isPKCS12([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x01]))
        #expect(OtherInput.recognise(p12).map(\.kind) == "pkcs12")
    }

    @Test("a private key in PEM is named as one; a certificate or public key is not 'other'")
    func pemLabels() throws {
        let pki = try TestHierarchy.make()
        let key = Array(pki.leaf.privateKey.pkcs8PEM.utf8)
        #expect(OtherInput.recognise(key).map(\.kind) == "privateKey")
        #expect(OtherInput.recognise(Array(pki.leaf.pem.utf8)) == nil)
        #expect(OtherInput.recognise(Array(pki.leaf.certificate.publicKey.pemEncoded.utf8)) == nil)
    }
}
