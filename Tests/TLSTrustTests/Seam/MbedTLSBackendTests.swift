import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustTesting
import Testing
@testable import TLSTrustMbedTLS

/// What the mbedTLS 2.28 backend does on its own: parsing, key extraction, anchor stores.
/// (Trust itself is the engine's and is tested there; the native verifier in `NativeVerifierTests`.)
@Suite("MbedTLS backend")
struct MbedTLSBackendTests {
    let backend = MbedTLSTrustBackend()

    @Test func aNameConstrainedCAIsReadableForTheEngine() throws {
        // nameConstraints is critical; mbedTLS 2.28 alone would refuse to parse the certificate.
        let scenario = try TestScenario.nameConstraints(leafDNSName: "www.example.com")
        for certificate in scenario.chain + scenario.anchors {
            #expect(try backend.parseCertificate(derEncoded: certificate.der) == certificate.certificate)
            #expect(try backend.publicKey(of: certificate.certificate) == certificate.certificate.publicKey)
        }
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

    /// Keys imported for the engine borrow one base-point table per curve (computed once per
    /// process, not a scalar multiplication per import), stay valid after other keys of the curve
    /// are freed, and verify from many threads at once; RSA keys have no table to borrow.
    @Test func importedECKeysShareTheCurvesBasePointTable() async throws {
        let chains = try [TestKeyAlgorithm.ecdsaP256, .ecdsaP384, .ecdsaP256, .ecdsaP384, .rsa2048].map { try TestHierarchy.make(keyAlgorithm: $0) }
        for chain in chains {
            // Imported and freed again and again: giving the table back must not free it.
            for _ in 0..<3 { _ = try backend.importPublicKey(chain.intermediate.certificate.publicKey) }
        }
        let keys = try chains.map { try #require(try backend.importPublicKey($0.intermediate.certificate.publicKey) as? MbedTLSVerificationKey) }
        #expect(keys.map(\.borrowsBasePointTable) == [true, true, true, true, false])
        let leaves = chains.map(\.leaf.certificate)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for round in 0..<16 {
                group.addTask {
                    let index = round % keys.count
                    let leaf = leaves[index]
                    let scheme = try #require(leaf.signatureScheme)
                    // A fresh key of the same curve made and dropped meanwhile, on another thread.
                    _ = try backend.importPublicKey(chains[(index + 1) % chains.count].intermediate.certificate.publicKey)
                    let good = try keys[index].isValidSignature(leaf.signatureValue, for: leaf.tbsCertificateBytes, scheme: scheme)
                    let wrongKey = try keys[(index + 1) % keys.count].isValidSignature(leaf.signatureValue, for: leaf.tbsCertificateBytes, scheme: scheme)
                    return good && !wrongKey
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }

    @Test func identity() {
        #expect(backend.name == "mbedtls")
        #expect(backend.libraryVersion.hasPrefix("mbed TLS 2.28"))
    }
}
