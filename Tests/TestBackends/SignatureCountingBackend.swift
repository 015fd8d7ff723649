import Foundation
import Synchronization
import TLSTrust
import TLSTrustOpenSSL

/// OpenSSL as a crypto provider — the one role the engine needs — counting the signature checks
/// the engine asks for. Each instance is a provider of its own, so that its keys and verified
/// chains are its alone.
public final class SignatureCountingBackend: TrustBackend, @unchecked Sendable {  // the counter is atomic; the rest is immutable
    let inner = OpenSSLTrustBackend()
    public let name = "counting-\(UUID().uuidString.prefix(8))"
    let checks = Atomic<Int>(0)

    public init() {}

    public var libraryVersion: String { inner.libraryVersion }
    public var providerIdentity: ProviderIdentity { ProviderIdentity(instance: self) }
    public var signatureAlgorithms: SupportedSignatureAlgorithms { inner.signatureAlgorithms }
    public func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey {
        CountingKey(inner: try inner.importPublicKey(key), owner: self)
    }

    /// How many signatures the engine asked this provider to check.
    public var signatureChecks: Int { checks.load(ordering: .relaxed) }

    final class CountingKey: SignatureVerificationKey {
        let inner: any SignatureVerificationKey
        let owner: SignatureCountingBackend
        init(inner: any SignatureVerificationKey, owner: SignatureCountingBackend) {
            self.inner = inner
            self.owner = owner
        }
        public func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool {
            owner.checks.add(1, ordering: .relaxed)
            return try inner.isValidSignature(signature, for: message, scheme: scheme)
        }
    }
}

