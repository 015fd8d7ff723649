import TLSTrustCore
/// Trusts a chain that validates to the trust's anchors — by default the system store — and, by
/// default, names the host.
///
/// The analogue of Alamofire's `DefaultTrustEvaluator`: what a TLS client does when it does
/// nothing special. The anchors are the `Trust`'s own (`Trust.anchors`, the system trust store
/// unless the caller chose otherwise); its profile, purpose and depth policies are kept, and the
/// SSL server policy for the host is applied.
///
/// ```swift
/// let decision = try ServerTrustEvaluating.default.evaluate(trust, forHost: "example.com", using: backend)
/// ```
public struct DefaultTrustEvaluator: ServerTrustEvaluating {
    /// Whether the leaf must name the host.
    public let validateHost: Bool

    /// - Parameter validateHost: check that the leaf names the host (default true).
    public init(validateHost: Bool = true) {
        self.validateHost = validateHost
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        try run.requireCertificates()
        let chain = try run.validate(trust.forServer(host: validateHost ? host : nil))
        return run.decision(chain, "validated to \(trust.anchors)\(validateHost ? " for the host" : ", host not checked")")
    }

    public func lint() -> [LintWarning] {
        validateHost ? [] : [LintWarning(.domainValidationDisabled, subject: evaluatorName,
                                         "the host name is not checked: any valid certificate for any name is accepted")]
    }
}

extension ServerTrustEvaluating where Self == DefaultTrustEvaluator {
    /// Default validation against the trust's anchors, host checked.
    public static var `default`: DefaultTrustEvaluator { DefaultTrustEvaluator() }

    /// Default validation against the trust's anchors.
    ///
    /// - Parameter validateHost: check that the leaf names the host (default true).
    public static func `default`(validateHost: Bool = true) -> DefaultTrustEvaluator {
        DefaultTrustEvaluator(validateHost: validateHost)
    }
}
