import Foundation
import TLSTrust
import TLSTrustTesting
import Testing
@testable import TLSTrustMbedTLS

/// What the mbedTLS 2.28 backend does on its own: parsing, key extraction, anchor stores.
/// (Trust itself is the engine's and is tested there; the native verifier in `NativeVerifierTests`.)
@Suite("MbedTLS backend")
struct MbedTLSBackendTests {
    let backend = MbedTLSTrustBackend()

    @Test func malformedDERIsRefused() throws {
        let der = try TestHierarchy.make().leaf.der
        for bad in [[], [0x30, 0x03, 0x02, 0x01, 0x01], Array(der.dropLast(10)), der + [0x00], Array(repeating: 0xFF, count: 64)] {
            #expect(throws: TLSTrustError(.malformedCertificate, "")) { try backend.parseCertificate(derEncoded: bad) }
        }
        #expect(try backend.parseCertificate(derEncoded: der).derEncoded == der)
    }

    @Test func aNameConstrainedCAIsReadableForTheEngine() throws {
        // nameConstraints is critical; mbedTLS 2.28 alone would refuse to parse the certificate.
        let scenario = try TestScenario.nameConstraints(leafDNSName: "www.example.com")
        for certificate in scenario.chain + scenario.anchors {
            #expect(try backend.parseCertificate(derEncoded: certificate.der) == certificate.certificate)
            #expect(try backend.publicKey(of: certificate.certificate) == certificate.certificate.publicKey)
        }
    }

    @Test(arguments: [TestKeyAlgorithm.rsa2048, .ecdsaP256, .ecdsaP384])
    func publicKeyIsTheCertificatesOwn(_ algorithm: TestKeyAlgorithm) throws {
        let leaf = try TestHierarchy.make(keyAlgorithm: algorithm).leaf
        #expect(try backend.publicKey(of: leaf.certificate) == leaf.certificate.publicKey)
    }

    @Test func ed25519IsReadButUnsupported() throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .ed25519)
        // Well-formed, so parsing succeeds; mbedTLS 2.28 just cannot use the algorithm.
        #expect(try backend.parseCertificate(derEncoded: pki.leaf.der) == pki.leaf.certificate)
        #expect(throws: TLSTrustError(.unsupported, "")) { try backend.publicKey(of: pki.leaf.certificate) }
        #expect(throws: TLSTrustError(.unsupported, "")) { try backend.importPublicKey(pki.leaf.certificate.publicKey) }
        #expect(!backend.capabilities.signatureSchemes.contains(.ed25519))
    }

    @Test func anchorKeysArePreparedForConcurrentUse() throws {
        let p256 = try TestHierarchy.make(keyAlgorithm: .ecdsaP256)
        let p384 = try TestHierarchy.make(keyAlgorithm: .ecdsaP384)
        let store = try #require(try backend.makeAnchorStore([p256.root.certificate, p384.root.certificate]) as? MbedTLSAnchorStore)
        #expect(store.byAddress.count == 2)
        #expect(store.allECKeysWarmedUp)
    }

    @Test func identity() {
        #expect(backend.name == "mbedtls")
        #expect(backend.libraryVersion.hasPrefix("mbed TLS 2.28"))
    }
}
