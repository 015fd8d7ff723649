import TLSTrustCore
/// Trusts only chains that end at the app's own CA certificates — the "CA whitelist" of an app with
/// its own PKI — optionally in addition to the system trust store.
///
/// The analogue of `SecTrustSetAnchorCertificates` followed by `SecTrustSetAnchorCertificatesOnly`:
/// with `includingSystemStore: false` (the default) an interception proxy whose CA the user
/// installed system-wide is refused. The anchors are prepared once, in `init`, and the prepared
/// form is reused by every evaluation: keep one evaluator for the life of the app.
///
/// ```swift
/// let evaluator = AnchoredTrustEvaluator(anchors: [appCA])
/// try evaluator.evaluate(trust, forHost: "api.example.com", using: backend)
/// ```
public struct AnchoredTrustEvaluator: ServerTrustEvaluating {
    /// The anchors evaluations use (the given CAs, and the system store when asked).
    public let anchors: TrustAnchors
    /// Whether the leaf must name the host.
    public let validateHost: Bool

    /// - Parameters:
    ///   - anchors: the CA certificates to trust. An anchor need not be self-signed.
    ///   - includingSystemStore: also trust `systemStore` (default false: only `anchors`).
    ///   - systemStore: the store added when `includingSystemStore` (default: the environment's).
    ///   - validateHost: check that the leaf names the host (default true).
    public init(anchors: [Certificate], includingSystemStore: Bool = false, systemStore: SystemTrustStore = .current,
                validateHost: Bool = true) {
        self.anchors = TrustAnchors(anchors, includingSystemStore: includingSystemStore, systemStore: systemStore)
        self.validateHost = validateHost
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        try run.requireCertificates()
        guard !anchors.certificates.isEmpty || anchors.includesSystemStore else {
            throw run.error(.noPinsConfigured, "no anchor certificate was given")
        }
        let chain = try run.validate(trust.forServer(host: validateHost ? host : nil).anchored(at: anchors),
                                     pinnedCertificates: anchors.certificates, what: "validation against \(anchors)")
        return run.decision(chain, "validated to \(chain.anchor.subject) (\(anchors))")
    }

    public func lint() -> [LintWarning] {
        var warnings: [LintWarning] = []
        if !validateHost {
            warnings.append(LintWarning(.domainValidationDisabled, subject: evaluatorName,
                                        "the host name is not checked: any certificate your CAs issued is accepted for any host"))
        }
        if anchors.certificates.isEmpty && !anchors.includesSystemStore {
            warnings.append(LintWarning(.noPins, subject: evaluatorName, "no anchor: every chain is refused"))
        }
        return warnings
    }
}

extension ServerTrustEvaluating where Self == AnchoredTrustEvaluator {
    /// Trust only chains ending at `anchors` (plus the system store when `includingSystemStore`).
    ///
    /// - Parameters:
    ///   - anchors: the CA certificates to trust.
    ///   - includingSystemStore: default false.
    ///   - validateHost: default true.
    public static func anchored(_ anchors: [Certificate], includingSystemStore: Bool = false,
                                validateHost: Bool = true) -> AnchoredTrustEvaluator {
        AnchoredTrustEvaluator(anchors: anchors, includingSystemStore: includingSystemStore, validateHost: validateHost)
    }
}
