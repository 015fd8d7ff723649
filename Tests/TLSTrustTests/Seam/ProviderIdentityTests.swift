import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// A wrapper adding nothing but a label to the provider it wraps: two instances of this one type
/// over different providers are two providers.
private struct Wrapper: TrustBackend {
    let inner: any TrustBackend
    var name: String { "wrapper" }
    var libraryVersion: String { inner.libraryVersion }
    var providerIdentity: ProviderIdentity { ProviderIdentity(wrapping: inner.providerIdentity, in: Self.self) }
    var signatureAlgorithms: SupportedSignatureAlgorithms { inner.signatureAlgorithms }
    func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey { try inner.importPublicKey(key) }
}

/// A provider whose keys answer every signature with one fixed verdict: one instance says yes to
/// everything, another no. The same type, two providers (one identity per instance).
private final class FixedVerdictProvider: TrustBackend, @unchecked Sendable {  // immutable
    let verdict: Bool
    init(_ verdict: Bool) { self.verdict = verdict }
    var name: String { "fixed" }
    var libraryVersion: String { "test" }
    var providerIdentity: ProviderIdentity { ProviderIdentity(instance: self) }
    var signatureAlgorithms: SupportedSignatureAlgorithms { .all }
    func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey { Key(verdict) }

    final class Key: SignatureVerificationKey {
        let verdict: Bool
        init(_ verdict: Bool) { self.verdict = verdict }
        func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool { verdict }
    }
}

/// The caches of imported keys and verified chains are keyed by the provider's own identity, not
/// by its name or its Swift type.
@Suite("Provider identity")
struct ProviderIdentityTests {
    @Test func identitiesAreTheProvidersOwn() {
        #expect(OpenSSLTrustBackend().providerIdentity == OpenSSLTrustBackend().providerIdentity, "a stateless backend is one provider")
        let yes = FixedVerdictProvider(true), no = FixedVerdictProvider(false)
        #expect(yes.providerIdentity == yes.providerIdentity && yes.providerIdentity != no.providerIdentity)
        #expect(Wrapper(inner: yes).providerIdentity == Wrapper(inner: yes).providerIdentity)
        #expect(Wrapper(inner: yes).providerIdentity != Wrapper(inner: no).providerIdentity)
        #expect(Wrapper(inner: yes).providerIdentity != yes.providerIdentity, "a wrapper is not the provider it wraps")
        #expect(Wrapper(inner: OpenSSLTrustBackend()).providerIdentity != Wrapper(inner: yes).providerIdentity)
    }

    @Test("two wrappers of one type over different providers share no imported key")
    func wrappersShareNoImportedKeys() throws {
        let issuer = try TestHierarchy.make().intermediate.certificate
        let overOpenSSL = Wrapper(inner: OpenSSLTrustBackend()), overYes = Wrapper(inner: FixedVerdictProvider(true))
        let yesKey = try issuer.verificationKey(for: overYes)
        let realKey = try issuer.verificationKey(for: overOpenSSL)
        #expect(yesKey !== realKey)
        #expect(yesKey is FixedVerdictProvider.Key && !(realKey is FixedVerdictProvider.Key))
        #expect(try issuer.verificationKey(for: overYes) === yesKey, "each provider's key is kept for it")
    }

    @Test("two wrappers of one type over different providers share no verified chain")
    func wrappersShareNoVerifiedChains() throws {
        let h = try TestHierarchy.make()
        let anchors = TrustAnchors.only(h.anchors.certificates)
        let trust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "www.example.com")], anchors: anchors)
        let overYes = Wrapper(inner: FixedVerdictProvider(true)), overNo = Wrapper(inner: FixedVerdictProvider(false))
        #expect(trust.evaluate(using: overYes).isTrusted)
        #expect(anchors.verifiedChainCount == 1)
        let refused = trust.evaluate(using: overNo)
        #expect(!refused.isTrusted && refused.primaryFailure?.code == .badSignature, "answered from another provider's cache: \(refused)")

        // The other way round: a chain whose signature is broken, trusted by the credulous
        // provider's wrapper, is refused by the same wrapper type over a real library.
        var forgedDER = h.leaf.der
        forgedDER[forgedDER.count - 2] ^= 0x01  // inside the signature value
        let forged = try Certificate(derEncoded: forgedDER)
        let forgedTrust = Trust(certificates: [forged, h.intermediate.certificate], policies: [.ssl(hostname: "www.example.com")], anchors: anchors)
        #expect(forgedTrust.evaluate(using: overYes).isTrusted)
        let real = forgedTrust.evaluate(using: Wrapper(inner: OpenSSLTrustBackend()))
        #expect(!real.isTrusted && real.primaryFailure?.code == .badSignature, "\(real)")
    }
}
