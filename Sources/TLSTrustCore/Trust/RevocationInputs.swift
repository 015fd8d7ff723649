import Foundation

/// What an evaluation knows about revocation before it starts: the policy and every answer the
/// app or the handshake supplied, with the fetcher to use when the policy allows the network.
public struct RevocationInputs: Sendable {
    public var policy: RevocationPolicy
    /// CRLs supplied by the app.
    public var crls: [CertificateRevocationList]
    /// DER OCSPResponses supplied by the app.
    public var ocspResponses: [[UInt8]]
    /// DER OCSPResponses stapled by the server.
    public var stapledOCSPResponses: [[UInt8]]
    /// Who fetches; nil: nothing is fetched. Set (by ``Trust``) only when the app allows the
    /// network (``RevocationPolicy/allowsNetworkFetch``): then missing issuers are fetched from
    /// caIssuers URLs whatever the mode, and revocation answers when the policy is enabled.
    public var fetcher: (any RevocationFetching)?
    /// Whether a CRL signed by another certificate than the issuer may be believed once its
    /// signer's path validates (RFC 5280 §6.3.3 (f)). False only inside that signer's own path
    /// check, so that signers never recurse.
    var buildsCRLSignerPaths = true

    public init(policy: RevocationPolicy, crls: [CertificateRevocationList] = [], ocspResponses: [[UInt8]] = [],
                stapledOCSPResponses: [[UInt8]] = [], fetcher: (any RevocationFetching)? = nil) {
        self.policy = policy
        self.crls = crls
        self.ocspResponses = ocspResponses
        self.stapledOCSPResponses = stapledOCSPResponses
        self.fetcher = fetcher
    }

    /// Revocation off, nothing supplied.
    public static let none = RevocationInputs(policy: .off)

    /// What a native verifier must be able to be told to honour these inputs (empty when the
    /// policy is off). CRLs alone need ``NativeVerifierFeatures/crlRevocation``; any OCSP answer
    /// the engine would consult, or a policy that OCSP alone may answer, needs
    /// ``NativeVerifierFeatures/ocspRevocation``, so that a verifier that reads only CRLs is never
    /// handed a request it would judge without the OCSP responses the engine would use; allowing
    /// the network needs ``NativeVerifierFeatures/revocationFetching``.
    public var requiredNativeFeatures: NativeVerifierFeatures {
        guard policy.isEnabled else { return [] }
        var f: NativeVerifierFeatures = [.crlRevocation]
        let ocspAnswers = !ocspResponses.isEmpty || !stapledOCSPResponses.isEmpty
        if !policy.methods.contains(.crl) || (policy.methods.contains(.ocsp) && ocspAnswers) {
            f.insert(.ocspRevocation)
        }
        if policy.allowsNetworkFetch { f.insert(.revocationFetching) }
        return f
    }
}

/// What the engine found out about one certificate's revocation status.
public struct CertificateRevocationStatus: Sendable, Hashable, CustomStringConvertible {
    /// The verdict for the certificate.
    public enum Status: String, Sendable, Hashable {
        /// A usable answer says it is not revoked.
        case good
        /// A usable answer says it is revoked (certificateHold included).
        case revoked
        /// No usable answer: judged without one under soft-fail, refused under hard-fail.
        case unknown
    }

    /// Where the deciding answer came from.
    public enum Source: String, Sendable, Hashable {
        /// A CRL the app supplied.
        case crl
        /// An OCSP response the app supplied.
        case ocspResponse = "ocsp-response"
        /// An OCSP response the server stapled.
        case stapledOCSPResponse = "stapled-ocsp-response"
        /// Fetched from the certificate's OCSP responder during this evaluation.
        case fetchedOCSPResponse = "fetched-ocsp-response"
        /// Fetched from a CRL distribution point during this evaluation.
        case fetchedCRL = "fetched-crl"
        /// Fetched earlier and still current (the revocation cache).
        case cachedOCSPResponse = "cached-ocsp-response"
        case cachedCRL = "cached-crl"
    }

    /// The certificate's index in the evaluated path (0 = leaf).
    public let certificateIndex: Int
    public let status: Status
    /// The answer that decided, nil when none did.
    public let source: Source?
    public let revocationDate: Date?
    public let reason: RevocationReason?
    /// What was found, including why answers were not usable.
    public let detail: String
    /// For a good status, when the deciding answer is due again: its nextUpdate (an OCSP response
    /// without one: a day after its thisUpdate, as the engine judges it); nil otherwise.
    public internal(set) var validUntil: Date?

    public var description: String {
        "depth \(certificateIndex): \(status.rawValue)\(source.map { " (\($0.rawValue))" } ?? ""): \(detail)"
    }
}
