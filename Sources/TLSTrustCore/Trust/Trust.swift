import Foundation

/// A certificate chain to evaluate, with the policies, anchors and date to evaluate it under.
///
/// The analogue of `SecTrust`: build one from the chain a peer presented, adjust it, evaluate it.
/// It is a value type; evaluating does not mutate it, so one `Trust` may be evaluated from many
/// tasks at once, and on different backends.
///
/// ```swift
/// var trust = Trust(certificates: peerChain, policies: [.ssl(hostname: "api.example.com")])
/// trust.anchors = .only([appCA])            // the app's own CA, nothing else
/// let evaluation = trust.evaluate(using: OpenSSLTrustBackend())
/// guard evaluation.isTrusted else { throw TrustEvaluationError(evaluation: evaluation) }
/// ```
public struct Trust: Sendable {
    /// The presented chain: the leaf first, then untrusted intermediates in any order.
    public var certificates: [Certificate]
    /// Every policy must hold. Defaults to ``TrustPolicy/basicX509``.
    public var policies: [TrustPolicy]
    /// What the chain may end at. Defaults to the system trust store.
    public var anchors: TrustAnchors
    /// The instant validity is judged at; nil means now (read when `evaluate` is called).
    public var verificationDate: Date?
    /// Whether a trusted engine result may be reused for this chain and question, within the
    /// validity of its path (``VerifiedChainCache``; default true). False always evaluates afresh.
    public var usesVerifiedChainCache = true
    /// Whether and how revocation status is consulted (default ``RevocationPolicy/off``).
    public var revocation: RevocationPolicy = .off
    /// CRLs the app supplies (`--crl`), used for the certificates their issuers signed. Given with
    /// ``revocation`` off, they are still consulted, under soft-fail (``effectiveRevocationPolicy``).
    public var crls: [CertificateRevocationList] = []
    /// DER OCSPResponses the app supplies (`--ocsp-response`, `SecTrustSetOCSPResponse`); like
    /// ``crls``, consulted even with ``revocation`` off.
    public var ocspResponses: [[UInt8]] = []
    /// DER OCSPResponses the server stapled in the handshake (status_request), leaf first where
    /// the library tells them apart. Set by `TLSHandshakeContext`.
    public var stapledOCSPResponses: [[UInt8]] = []
    /// Who fetches when ``RevocationPolicy/allowsNetworkFetch`` is set; nil uses the built-in
    /// ``HTTPRevocationFetcher`` with its default limits.
    public var revocationFetcher: (any RevocationFetching)?
    /// The Certificate Transparency policy a trusted path must meet (nil: none). SCTs are read from
    /// the leaf, from ``signedCertificateTimestampList`` and from the OCSP responses (given and
    /// stapled) about the leaf.
    public var certificateTransparency: CertificateTransparencyPolicy?
    /// The SignedCertificateTimestampList the server sent in the TLS `signed_certificate_timestamp`
    /// extension (RFC 6962 §3.3, the TLS encoding), for the leaf.
    public var signedCertificateTimestampList: [UInt8]?

    /// - Parameters:
    ///   - certificates: leaf first, then intermediates in any order.
    ///   - policies: defaults to `[.basicX509]`.
    ///   - anchors: defaults to the system trust store.
    public init(certificates: [Certificate], policies: [TrustPolicy] = [.basicX509], anchors: TrustAnchors = .system) {
        self.certificates = certificates
        self.policies = policies
        self.anchors = anchors
    }

    /// The analogue of `SecTrustSetAnchorCertificates` + `SecTrustSetAnchorCertificatesOnly`.
    ///
    /// - Parameters:
    ///   - certificates: the anchors.
    ///   - anchorsOnly: true (default) trusts only `certificates`; false adds the system store.
    public mutating func setAnchorCertificates(_ certificates: [Certificate], anchorsOnly: Bool = true) {
        anchors = TrustAnchors(certificates, includingSystemStore: !anchorsOnly)
    }

    /// Evaluates the chain: the one door to a verdict.
    ///
    /// Every entry point — `SecTrust`, the evaluators, NIO, TLS handshakes, the tool — decides
    /// here: the policies are resolved and checked (``makeRequest(for:)``), TLSTrust's validation
    /// engine decides with `backend` as its crypto provider only, and every trusted result passes
    /// the last gate (`ResultCheck`). A library's own verifier never decides a `Trust`; it answers
    /// only through the comparison API (`@_spi(Comparison)`, `NativeTrustVerifier`).
    ///
    /// - Parameter backend: the backend to use; nil uses the bootstrapped default.
    /// - Returns: the evaluation. Problems with the input itself (no certificates, contradictory
    ///   policies, no backend) come back as an untrusted evaluation, never as trust.
    public func evaluate(using backend: (any TrustBackend)? = nil) -> TrustEvaluation {
        resolved(for: backend) { request, backend in ValidationDoor.evaluate(request, provider: backend) }
    }

    /// `body`'s evaluation of this trust's request on `backend` (or the default backend); the
    /// refusal of a request that cannot be made, as an untrusted evaluation.
    func resolved(for backend: (any TrustBackend)?,
                  _ body: (TrustEvaluationRequest, any TrustBackend) -> TrustEvaluation) -> TrustEvaluation {
        guard let backend = backend ?? TrustBackends.defaultBackend else {
            return Self.refusal(.internalError, "no trust backend: pass one or call TrustBackends.bootstrap(_:)", backend: "none")
        }
        do {
            return body(try makeRequest(for: backend), backend)
        } catch let error as TLSTrustError {
            let code: TrustFailureCode = switch error.code {
            case .invalidArgument: .invalidPolicy
            case .unsupported: .unsupported
            default: .internalError
            }
            return Self.refusal(code, error.message, backend: backend.name)
        } catch {
            return Self.refusal(.internalError, "\(error)", backend: backend.name)
        }
    }

    /// Evaluates the chain and throws unless it is trusted, like `SecTrustEvaluateWithError`.
    ///
    /// - Throws: ``TrustEvaluationError`` carrying the full evaluation.
    @discardableResult
    public func evaluateOrThrow(using backend: (any TrustBackend)? = nil) throws -> TrustEvaluation {
        let evaluation = evaluate(using: backend)
        guard evaluation.isTrusted else { throw TrustEvaluationError(evaluation: evaluation) }
        return evaluation
    }

    /// Resolves the policies into the flat request the engine evaluates: the request checks.
    /// The request can be read (what the tool prints), not evaluated apart from this `Trust`.
    ///
    /// - Throws: `TLSTrustError` `.invalidArgument` for an empty chain or contradictory policies.
    public func makeRequest(for backend: any TrustBackend) throws -> TrustEvaluationRequest {
        guard let leaf = certificates.first else {
            throw TLSTrustError(.invalidArgument, "no certificate to evaluate")
        }
        var host: HostIdentity?
        var impliedPurpose: KeyPurpose?
        var explicitPurpose: KeyPurpose?
        var depth: Int?
        var allowsCommonName = false
        var profile: ValidationProfile?
        var identityAndPolicies = RequestPolicyInputs()
        for policy in policies {
            switch policy.kind {
            case .basicX509:
                continue
            case .profile(let p):
                if let profile, profile != p {
                    throw TLSTrustError(.invalidArgument, "contradictory policies: profiles \(profile) and \(p)")
                }
                profile = p
            case .ssl(let isServer, let h, let cn):
                allowsCommonName = allowsCommonName || cn
                if let h {
                    if let host, host != h {
                        throw TLSTrustError(.invalidArgument, "contradictory policies: host names \(host) and \(h)")
                    }
                    host = h
                }
                let p: KeyPurpose = isServer ? .serverAuth : .clientAuth
                if let impliedPurpose, impliedPurpose != p {
                    throw TLSTrustError(.invalidArgument, "contradictory policies: SSL server and SSL client")
                }
                impliedPurpose = p
            case .purpose(let p):
                if let explicitPurpose, explicitPurpose != p {
                    throw TLSTrustError(.invalidArgument, "contradictory policies: purposes \(explicitPurpose) and \(p)")
                }
                explicitPurpose = p
            case .maximumChainDepth(let n):
                guard n >= 0 else { throw TLSTrustError(.invalidArgument, "maximum chain depth must not be negative") }
                depth = min(depth ?? n, n)
            case .certificatePolicies, .email, .keyUsage:
                try identityAndPolicies.add(policy.kind)
            }
        }
        if host != nil, !identityAndPolicies.emailAddresses.isEmpty {
            throw TLSTrustError(.invalidArgument, "contradictory policies: an SSL host name and an e-mail address")
        }
        return TrustEvaluationRequest(
            leaf: leaf,
            intermediates: Array(certificates.dropFirst()),
            anchors: anchors,
            host: host,
            allowsCommonNameFallback: allowsCommonName,
            purpose: explicitPurpose ?? impliedPurpose ?? .any,
            maximumIntermediates: depth,
            verificationDate: verificationDate ?? Date(),
            hasExplicitVerificationDate: verificationDate != nil,
            profile: profile ?? .webPKI,
            usesVerifiedChainCache: usesVerifiedChainCache,
            certificatePolicyInputs: identityAndPolicies.certificatePolicies ?? .default,
            emailAddresses: identityAndPolicies.emailAddresses,
            requiredKeyUsage: identityAndPolicies.keyUsage,
            revocation: RevocationInputs(policy: effectiveRevocationPolicy, crls: crls, ocspResponses: ocspResponses,
                                         stapledOCSPResponses: stapledOCSPResponses,
                                         fetcher: revocation.allowsNetworkFetch ? (revocationFetcher ?? HTTPRevocationFetcher()) : nil),
            transparency: certificateTransparency.map {
                TransparencyInputs(policy: $0, tlsSCTList: signedCertificateTimestampList,
                                   ocspResponses: ocspResponses + stapledOCSPResponses)
            }
        )
    }

    /// ``revocation``, except that answers the app gave itself (``crls``, ``ocspResponses``) are
    /// never ignored: with the policy off they are consulted under soft-fail, offline — as the
    /// tool's `--crl` and Apple's `SecTrustSetOCSPResponse` do. Stapled responses alone do not
    /// turn revocation on (a client may ask for them only to read them).
    public var effectiveRevocationPolicy: RevocationPolicy {
        guard !revocation.isEnabled, !crls.isEmpty || !ocspResponses.isEmpty else { return revocation }
        return RevocationPolicy(mode: .soft, maximumClockSkew: revocation.maximumClockSkew)
    }

    static func refusal(_ code: TrustFailureCode, _ message: String, backend: String) -> TrustEvaluation {
        TrustEvaluation(
            chain: [], failures: [TrustFailure(code, certificateIndex: nil, detail: message)],
            backendName: backend, anchoredAtCustomAnchor: false)
    }
}
