import Foundation
import TLSTrust
@_spi(Benchmarking) @_spi(Comparison) import TLSTrustCore
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The plugin seam: a backend is its roles, and the core derives what it can do from them.
@Suite("Backend roles")
struct BackendRolesTests {
    /// The smallest backend there is: the engine's crypto provider, borrowing OpenSSL's keys.
    struct SignaturesOnly: TrustBackend {
        var name: String { "signatures-only" }
        var libraryVersion: String { "test" }
        var providerIdentity: ProviderIdentity { ProviderIdentity(type: Self.self) }
        var signatureAlgorithms: SupportedSignatureAlgorithms { OpenSSLTrustBackend().signatureAlgorithms }
        func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey { try OpenSSLTrustBackend().importPublicKey(key) }
    }

    @Test func theInTreeBackendsPlayEveryRole() {
        for backend in TestBackends.all {
            #expect(backend.capabilities.roles == [.signatures, .nativeVerifier, .identities, .tls], "\(backend.name)")
            #expect(backend.capabilities.signatureSchemes == backend.signatureSchemes)
        }
        #expect(OpenSSLTrustBackend().capabilities.nativeVerifier == OpenSSLTrustBackend().nativeFeatures)
    }

    @Test func aSignatureProviderAloneIsAFullEngineBackend() throws {
        let backend: any TrustBackend = SignaturesOnly()
        #expect(backend.capabilities.roles == .signatures)
        #expect(backend.capabilities.nativeVerifier.isEmpty)
        let pki = try TestHierarchy.make()
        let trust = Trust(certificates: pki.chain.certificates, policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only(pki.anchors.certificates))
        #expect(trust.evaluate(using: backend).isTrusted)
        #expect(trust.evaluate(using: backend).isTrusted == trust.evaluate(using: OpenSSLTrustBackend()).isTrusted)
        let wrongHost = Trust(certificates: pki.chain.certificates, policies: [.ssl(hostname: "evil.example.net")],
                              anchors: .only(pki.anchors.certificates))
        #expect(wrongHost.evaluate(using: backend).primaryFailure?.code == .hostnameMismatch)
    }

    @Test func whatARoleAddsIsRefusedAsUnsupportedWithoutIt() throws {
        let backend: any TrustBackend = SignaturesOnly()
        let pki = try TestHierarchy.make()
        var native = Trust(certificates: pki.chain.certificates, anchors: .only(pki.anchors.certificates))
        let refused = native.evaluateNatively(using: backend)
        #expect(!refused.isTrusted && refused.primaryFailure?.code == .unsupported, "\(refused)")
        #expect(native.evaluateNatively(using: OpenSSLTrustBackend()).isTrusted)
        do {
            _ = try backend.importPKCS12([0x30, 0x00], password: "x")
            Issue.record("a backend without IdentityImporting imported an identity")
        } catch let error as TLSTrustError {
            #expect(error.code == .unsupported)
        }
        let leaf = pki.leaf.certificate, intermediate = pki.intermediate.certificate, root = pki.root.certificate
        #expect(try backend.makeRawVerificationBenchmark(leaf: leaf, intermediates: [intermediate], anchor: root, hostname: "www.example.com") == nil)
        let raw = try (OpenSSLTrustBackend() as any TrustBackend)
            .makeRawVerificationBenchmark(leaf: leaf, intermediates: [intermediate], anchor: root, hostname: "www.example.com")
        #expect(raw?.verifyFromDER() == true)
    }

    @Test func identityImportThroughTheRoleAndThroughAnyBackendAgree() throws {
        // The convenience on any backend forwards to the role: no recursion, the same identity.
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, password: "roles")
        for backend in TestBackends.all {
            let viaAny = try backend.importPKCS12(p12, password: "roles")
            #expect(viaAny.certificate == pki.leaf.certificate, "\(backend.name)")
        }
    }

    /// A native verifier that calls every chain trusted: what a library's verifier with a bug, or a
    /// plug-in that wants to decide, would answer.
    struct CredulousNativeVerifier: TrustBackend, NativeTrustVerifier {
        var name: String { "credulous-native" }
        var libraryVersion: String { "test" }
        var providerIdentity: ProviderIdentity { ProviderIdentity(type: Self.self) }
        var signatureAlgorithms: SupportedSignatureAlgorithms { OpenSSLTrustBackend().signatureAlgorithms }
        func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey { try OpenSSLTrustBackend().importPublicKey(key) }
        var nativeFeatures: NativeVerifierFeatures { [.verificationTime, .dnsHostName, .ipAddressHost, .purpose, .maximumDepth, .partialChains] }
        func makeAnchorStore(_ anchors: [Certificate]) throws -> OpenSSLAnchorStore { try OpenSSLTrustBackend().makeAnchorStore(anchors) }
        func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: OpenSSLAnchorStore) -> TrustEvaluation {
            request.evaluation(chain: [request.leaf] + request.intermediates + request.anchors.certificates, failures: [], backendName: name)
        }
    }

    @Test("a native verifier decides nothing: the one door is the engine, and its trust is no validated chain")
    func aNativeVerifierDecidesNothing() throws {
        let backend = CredulousNativeVerifier()
        let pki = try TestHierarchy.make()
        let wrongHost = Trust(certificates: pki.chain.certificates, policies: [.ssl(hostname: "evil.example.net")],
                              anchors: .only(pki.anchors.certificates))
        #expect(wrongHost.evaluate(using: backend).primaryFailure?.code == .hostnameMismatch)
        #expect(throws: ServerTrustError.self) { try DefaultTrustEvaluator().evaluate(wrongHost, forHost: "evil.example.net", using: backend) }
        // Asked for comparison, it says "trusted", and that answer cannot be pinned or handed on.
        let native = wrongHost.evaluateNatively(using: backend)
        #expect(native.isTrusted && native.validatedChain == nil, "\(native)")
        // A chain that does not link is still caught by the last gate.
        let stranger = try TestHierarchy.make()
        let unlinked = Trust(certificates: [pki.leaf.certificate], anchors: .only(stranger.anchors.certificates))
        #expect(unlinked.evaluateNatively(using: backend).primaryFailure?.code == .internalError)
    }
}
