import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustBackendConformance
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustPKI
import Testing
#if SwiftCrypto
import TLSTrustSwiftCrypto
#endif

/// The backend conformance kit (`TLSTrustBackendConformance`) on every in-tree backend (the one
/// list, `TestBackends`, so a backend added there runs the kit too), with OpenSSL as the reference
/// for the engine's verdicts; with the `SwiftCrypto` trait, on the swift-crypto backend too.
@Suite("Backend conformance kit")
struct BackendConformanceKitTests {
    static var backendNames: [String] {
        var names = TestBackends.names
        #if SwiftCrypto
        names.append(SwiftCryptoTrustBackend().name)
        #endif
        return names
    }

    static func backend(_ name: String) -> any TrustBackend {
        #if SwiftCrypto
        if name == SwiftCryptoTrustBackend().name { return SwiftCryptoTrustBackend() }
        #endif
        return TestBackends.named(name)
    }

    /// The in-tree libraries are all under the kit (a guard against the list shrinking unnoticed).
    @Test func everyInTreeLibraryRunsTheKit() {
        #expect(Set(["openssl", "gnutls", "mbedtls"]).isSubset(of: Set(Self.backendNames)), "\(Self.backendNames)")
    }

    /// Findings the kit makes on an in-tree backend today (none: OpenSSL's acceptance of bytes after
    /// an RSAPublicKey was closed in the core's SPKI reader), each a real deviation to fix in that
    /// backend, not in the kit. Listed so that the rest is enforced, and checked to be still
    /// present so that a fix removes its line here.
    static let knownFindings: [String: Set<String>] = [:]

    @Test("every section passes", arguments: backendNames, BackendConformanceSection.allCases)
    func conforms(_ name: String, _ section: BackendConformanceSection) throws {
        let report = try BackendConformance.run(Self.backend(name), reference: OpenSSLTrustBackend(), sections: [section])
        let known = Self.knownFindings[name] ?? []
        let unexpected = report.findings.filter { !known.contains($0.description) }
        #expect(unexpected.isEmpty, "\(report)")
        for finding in known where finding.hasPrefix("[\(section)]") {
            #expect(report.findings.contains { $0.description == finding }, "fixed? remove from knownFindings: \(finding)")
        }
        #expect((report.checks[section] ?? 0) > 0, "the section checked nothing")
    }

    /// The kit must catch what it is for: a provider that says yes to everything fails it.
    @Test func aProviderThatAcceptsEverySignatureFails() throws {
        let report = try BackendConformance.run(Credulous(), reference: OpenSSLTrustBackend(), sections: [.signatures, .verdicts])
        #expect(!report.conforms)
        #expect(report.findings.contains { $0.section == .signatures && $0.detail.contains("bit flipped") })
        #expect(report.findings.contains { $0.section == .verdicts && $0.subject == "badSignature" })
    }

    /// Real keys from OpenSSL, wrapped so that every signature "verifies": the failure the kit
    /// exists to catch. (A wrapper over a real backend, not a mock of one: it imports for real.)
    struct Credulous: TrustBackend {
        var name: String { "credulous" }
        var libraryVersion: String { "none" }
        var providerIdentity: ProviderIdentity { ProviderIdentity(type: Self.self) }
        var signatureAlgorithms: SupportedSignatureAlgorithms { .all }
        func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey {
            _ = try OpenSSLTrustBackend().importPublicKey(key)
            return Yes()
        }
        final class Yes: SignatureVerificationKey {
            func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool { true }
        }
    }

    #if SwiftCrypto
    /// The swift-crypto backend decides a real chain through the one door, as `tlstrust evaluate
    /// --backend swift-crypto` does, and refuses the same chain for another host.
    @Test(arguments: [TestKeyAlgorithm.rsa2048, .ecdsaP256, .ecdsaP384, .ed25519])
    func swiftCryptoEvaluatesAChain(_ algorithm: TestKeyAlgorithm) throws {
        let backend = SwiftCryptoTrustBackend()
        #expect(backend.name == "swift-crypto")
        #expect(backend.capabilities.roles == .signatures)
        #expect(backend.signatureAlgorithms == .all && backend.signatureSchemes == SignatureScheme.all)
        let h = try TestHierarchy.make(keyAlgorithm: algorithm)
        let trust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "www.example.com")], anchors: .only(h.anchors.certificates))
        let evaluation = trust.evaluate(using: backend)
        #expect(evaluation.isTrusted, "\(evaluation)")
        #expect(evaluation.result == .proceed)
        let wrong = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "other.example.com")], anchors: .only(h.anchors.certificates))
        #expect(wrong.evaluate(using: backend).failures.first?.code == .hostnameMismatch)
        #expect(trust.evaluateNatively(using: backend).failures.first?.code == .unsupported, "no native verifier: unsupported, never trusted")
    }
    #endif
}
