import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

@Suite("PEM and DER input")
struct PEMTests {
    @Test func readsABundleWithCommentsAndOtherBlocks() throws {
        let a = try TestPKI.issue(.leaf(commonName: "a.example.com"))
        let b = try TestPKI.issue(.leaf(commonName: "b.example.com"))
        let text = "# a comment\n" + a.pem + "\n" + a.privateKey.pkcs8PEM + "junk between\n" + b.pem
        let certs = try Certificate.certificates(pemOrDER: Array(text.utf8))
        #expect(certs == [a.certificate, b.certificate])
    }

    @Test func readsDERAndRoundTripsPEM() throws {
        let a = try TestPKI.issue(.leaf(commonName: "a.example.com"))
        #expect(try Certificate.certificates(pemOrDER: a.der) == [a.certificate])
        #expect(try Certificate(pemEncoded: a.certificate.pemEncoded) == a.certificate)
        #expect(a.certificate.pemEncoded == a.pem)
    }

    @Test func reportsEachKindOfBadInputWithItsOwnCode() throws {
        let a = try TestPKI.issue(.leaf(commonName: "a.example.com"))
        func code(_ text: String) -> TLSTrustError.Code? {
            do { _ = try Certificate.certificates(pemOrDER: Array(text.utf8)); return nil } catch let e as TLSTrustError { return e.code } catch { return nil }
        }
        #expect(code("") == .noCertificate)
        #expect(code("   \n") == .noCertificate)
        #expect(code(a.privateKey.pkcs8PEM) == .noCertificate)
        #expect(code(String(a.pem.prefix(120))) == .malformedPEM)
        #expect(code(a.pem.replacingOccurrences(of: "M", with: "!")) == .malformedPEM)
        #expect(code("hello world") == .malformedCertificate)
        let corrupted = a.pem.replacingOccurrences(of: "-----BEGIN CERTIFICATE-----\nMII", with: "-----BEGIN CERTIFICATE-----\nMIA")
        #expect(code(corrupted) == .malformedCertificate)
    }

    @Test func readsPublicKeysAsPEMAndDER() throws {
        let a = try TestPKI.issue(.leaf(commonName: "k.example.com"))
        let key = try PublicKey(pemOrDER: a.privateKey.subjectPublicKeyInfoDER)
        #expect(key == a.certificate.publicKey)
        #expect(try PublicKey(pemOrDER: Array(key.pemEncoded.utf8)) == key)
        #expect(throws: TLSTrustError.self) { try PublicKey(pemOrDER: [0x30, 0x03, 0x02, 0x01, 0x00]) }
    }
}
