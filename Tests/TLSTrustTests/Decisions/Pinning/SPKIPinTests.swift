import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

@Suite("SPKI pins")
struct SPKIPinTests {
    @Test("a sha256/ pin is the PublicKey pin, and round-trips", arguments: TestKeyAlgorithm.allCases)
    func sha256PinEqualsPublicKeyPin(algorithm: TestKeyAlgorithm) throws {
        let cert = try TestPKI.issue(.leaf(commonName: "pin.example.com", keyAlgorithm: algorithm)).certificate
        let pin = SPKIPin(publicKey: cert.publicKey)
        #expect(pin.text == cert.publicKey.pin)
        let parsed = try SPKIPin(cert.publicKey.pin)
        #expect(parsed == pin)
        #expect(parsed.matches(cert.publicKey))
    }

    @Test("sha384/ and sha512/ pins hash the SPKI DER")
    func longerDigests() throws {
        let key = try TestPKI.issue(.leaf(commonName: "long.example.com")).certificate.publicKey
        for algorithm in [SPKIPin.Algorithm.sha384, .sha512] {
            let pin = SPKIPin(publicKey: key, algorithm: algorithm)
            #expect(pin.text.hasPrefix("\(algorithm)/"))
            #expect(pin.digest == algorithm.digest(key.subjectPublicKeyInfoDER))
            let parsed = try SPKIPin(pin.text)
            #expect(parsed.algorithm == algorithm && parsed.matches(key))
        }
    }

    @Test("a pin of another key does not match")
    func otherKey() throws {
        let a = try TestPKI.issue(.leaf(commonName: "a.example.com")).certificate.publicKey
        let b = try TestPKI.issue(.leaf(commonName: "b.example.com")).certificate.publicKey
        #expect(!SPKIPin(publicKey: a).matches(b))
        #expect(!SPKIPin(publicKey: a, algorithm: .sha512).matches(b))
    }

    @Test("malformed pins give a specific error", arguments: [
        ("", "not a sha256/ pin"),
        ("r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "not a sha256/ pin"),
        ("md5/AAAAAAAAAAAAAAAAAAAAAA==", "not a sha256/ pin"),
        ("sha1/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "decodes to 32 bytes, a SHA1 digest has 20"),
        ("sha256/", "not base64"),
        ("sha256/not base64 at all!", "not base64"),
        ("sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E", "not base64"),
        ("sha256/ r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "not base64"),
        ("sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", "decodes to 31 bytes"),
        ("sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", "decodes to 34 bytes"),
        ("sha384/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "decodes to 32 bytes, a SHA384 digest has 48"),
        ("sha512/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "decodes to 32 bytes, a SHA512 digest has 64"),
        ("sha256/\u{0}\u{1b}[31m", "not base64"),
    ])
    func malformed(text: String, fragment: String) {
        do {
            _ = try SPKIPin(text)
            Issue.record("\(text) was accepted")
        } catch let error as PinningError {
            #expect(error.code == .malformedPin)
            #expect(error.message.contains(fragment), "\(error.message)")
            #expect(!error.message.contains("\u{1b}"), "control characters are escaped")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("the prefix is case-insensitive, as OkHttp's is not strict about it")
    func prefixCase() throws {
        let key = try TestPKI.issue(.leaf(commonName: "case.example.com")).certificate.publicKey
        let pin = try SPKIPin("SHA256/" + key.pin.dropFirst("sha256/".count))
        #expect(pin.matches(key))
    }

    @Test func aRawDigestOfTheWrongLengthIsRefused() {
        #expect(throws: PinningError.self) { try SPKIPin(algorithm: .sha256, digest: [UInt8](repeating: 0, count: 20)) }
        #expect(throws: Never.self) { try SPKIPin(algorithm: .sha512, digest: [UInt8](repeating: 0, count: 64)) }
    }

    @Test("a whole-certificate hash is recognised as such")
    func certificateHash() throws {
        let cert = try TestPKI.issue(.leaf(commonName: "hash.example.com")).certificate
        let wrong = try SPKIPin(algorithm: .sha256, digest: cert.sha256Fingerprint)
        #expect(wrong.isCertificateHash(of: cert))
        #expect(!wrong.matches(cert.publicKey))
        #expect(!SPKIPin(publicKey: cert.publicKey).isCertificateHash(of: cert))
    }
}
