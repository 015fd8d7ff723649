import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// What every backend must do alike before the engine sees anything: refuse malformed DER with
/// `malformedCertificate`, keep a well-formed certificate's bytes, and report as its public key
/// exactly the key the core parsed. (Library-specific behaviour stays in each backend's own suite.)
@Suite("Every backend: parsing and public keys")
struct BackendParsingTests {
    @Test(arguments: TestBackends.names)
    func malformedDERIsRefused(_ name: String) throws {
        let backend = TestBackends.named(name)
        let der = try TestHierarchy.make().leaf.der
        for bad in [[], [0x30, 0x03, 0x02, 0x01, 0x01], Array(der.dropLast(10)), der + [0x00], Array(repeating: 0xFF, count: 64)] {
            #expect(throws: TLSTrustError(.malformedCertificate, ""), "\(name): \(bad.prefix(8))") {
                try backend.parseCertificate(derEncoded: bad)
            }
        }
        #expect(try backend.parseCertificate(derEncoded: der).derEncoded == der)
    }

    /// Every key type the backend's algorithm list can use (mbedTLS 2.28's refusal of Ed25519 is
    /// tested in its own suite).
    @Test(arguments: TestBackends.names)
    func publicKeyIsTheCertificatesOwn(_ name: String) throws {
        let backend = TestBackends.named(name)
        let algorithms = TestKeyAlgorithm.allCases.filter {
            $0 != .ed25519 || backend.signatureAlgorithms.contains(.ed25519)
        }
        for algorithm in algorithms {
            let leaf = try TestHierarchy.make(keyAlgorithm: algorithm).leaf
            #expect(try backend.publicKey(of: leaf.certificate) == leaf.certificate.publicKey, "\(name) \(algorithm)")
        }
    }
}
