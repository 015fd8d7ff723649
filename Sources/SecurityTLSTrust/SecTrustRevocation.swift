import TLSTrust

// The trust's revocation inputs: OCSP responses the app gives, and whether the evaluation may use
// the network. The revocation policy itself is `SecPolicyCreateRevocation` (SecPolicy.swift).

/// Gives the trust DER `OCSPResponse`s (RFC 6960) to consult — typically the response a server
/// stapled in the TLS handshake: a `CFData` holding one, or a `CFArray` of them. They replace any
/// given before; nil removes them. The trust's previous result is discarded.
///
/// The engine uses a response only for the certificate it is about, and only when it is correctly
/// signed (by the issuer or its delegated responder) and current at the trust's date. A response
/// saying "revoked" refuses the chain (`errSecCertificateRevoked`) even without a revocation policy;
/// with `SecPolicyCreateRevocation`, the policy's flags decide how the rest is judged.
///
/// - Returns: `errSecSuccess`; `errSecParam` when `responseData` is neither a `CFData` nor an array
///   of `CFData` (as Apple's); `errSecDecode` when one of them is not a DER `OCSPResponse` (Apple
///   accepts and ignores such bytes; here a port learns of them). On an error the responses the
///   trust had are kept, and its result is discarded all the same.
@discardableResult
public func SecTrustSetOCSPResponse(_ trust: SecTrust, _ responseData: CFTypeRef?) -> OSStatus {
    guard let responses = objects(responseData, of: NSData.self) else {
        trust.state.withLock { $0.invalidate() }
        return errSecParam
    }
    var encoded: [[UInt8]] = []
    for response in responses {
        let bytes = [UInt8](response as Data)
        do {
            _ = try OCSPResponse(derEncoded: bytes)
        } catch {
            trust.state.withLock { $0.invalidate() }
            return errSecDecode
        }
        encoded.append(bytes)
    }
    trust.state.withLock {
        $0.ocspResponses = encoded
        $0.invalidate()
    }
    return errSecSuccess
}

extension SecTrust {
    /// CRLs to consult, replacing any given before (an empty list removes them): TLSTrust's
    /// addition, with no Apple counterpart — Apple's trustd fetches CRLs itself, Linux apps often
    /// hold them as files (`CertificateRevocationList.crls(pemOrDER:)` reads PEM or DER). The trust's
    /// previous result is discarded.
    ///
    /// A CRL is used only for the certificates its issuer signed, when its signature verifies and it
    /// is current at the trust's date. A CRL listing a certificate refuses the chain
    /// (`errSecCertificateRevoked`) even without a revocation policy; with `SecPolicyCreateRevocation`
    /// the policy's flags decide how the rest is judged (`kSecRevocationOCSPMethod` alone leaves
    /// CRLs unconsulted). Code that must also build on Apple platforms calls it under
    /// `#if !canImport(Darwin)`.
    public func setCertificateRevocationLists(_ crls: [CertificateRevocationList]) {
        state.withLock {
            $0.crls = crls
            $0.invalidate()
        }
    }
}

/// Whether the evaluation may fetch over the network: OCSP responses from a certificate's responder
/// and CRLs from its distribution points, for a revocation policy that does not set
/// `kSecRevocationNetworkAccessDisabled`. The trust's previous result is discarded.
///
/// Apple's default, kept here: allowed when the trust has the SSL policy (or a revocation policy
/// that does not disable the network), not allowed otherwise. Setting it overrides the default
/// either way, with one difference from Apple: `true` does not lift a revocation policy's
/// `kSecRevocationNetworkAccessDisabled` (Apple's clears that option in the trust's policies);
/// both must allow a fetch. Missing intermediates are never fetched (no AIA chasing).
///
/// - Returns: `errSecSuccess`.
@discardableResult
public func SecTrustSetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: Bool) -> OSStatus {
    trust.state.withLock {
        $0.networkFetchAllowed = allowFetch
        $0.invalidate()
    }
    return errSecSuccess
}

/// Reads whether the evaluation may fetch over the network: the value set with
/// `SecTrustSetNetworkFetchAllowed`, else Apple's default (true with the SSL policy or a revocation
/// policy that does not disable the network, false otherwise).
///
/// - Returns: `errSecSuccess`.
@discardableResult
public func SecTrustGetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    allowFetch.pointee = DarwinBoolean(trust.state.withLock { $0.allowsNetworkFetch })
    return errSecSuccess
}

/// The C `Boolean` as Swift imports it on Apple platforms (the Darwin overlay's type), which
/// `SecTrustGetNetworkFetchAllowed` fills: `var allowed: DarwinBoolean = false` then
/// `allowed.boolValue` compiles here as it does there.
@frozen
public struct DarwinBoolean: ExpressibleByBooleanLiteral, Equatable, Hashable, Sendable, CustomStringConvertible {
    private let value: UInt8

    public init(_ value: Bool) { self.value = value ? 1 : 0 }
    public init(booleanLiteral value: Bool) { self.init(value) }

    /// The value as a `Bool`.
    public var boolValue: Bool { value != 0 }
    public var description: String { boolValue.description }
}

extension Bool {
    /// The value of a `DarwinBoolean`, as on Apple platforms.
    public init(_ value: DarwinBoolean) { self = value.boolValue }
}
