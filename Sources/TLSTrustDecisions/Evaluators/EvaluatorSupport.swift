import TLSTrustCore
/// What the evaluators share: the server policy, the one place a chain is validated, timing.

extension Trust {
    /// This trust with the SSL server policy for `host` (nil: no name check), keeping the caller's
    /// other policies (profile, purpose, depth) and any opt-in to the common-name fallback.
    func forServer(host: String?) -> Trust {
        var copy = self
        var allowsCommonName = false
        var kept: [TrustPolicy] = []
        for policy in policies {
            switch policy.kind {
            case .ssl(_, _, let cn): allowsCommonName = allowsCommonName || cn
            case .basicX509: continue
            default: kept.append(policy)
            }
        }
        copy.policies = kept + [.ssl(hostname: host, allowingCommonName: allowsCommonName)]
        return copy
    }

    /// This trust with `anchors` in place of its own.
    func anchored(at anchors: TrustAnchors) -> Trust {
        var copy = self
        copy.anchors = anchors
        return copy
    }
}

/// One evaluator's run: the host, backend, clock, and the evidence it gathers for errors.
struct EvaluationRun {
    let trust: Trust
    let host: String
    let backend: (any TrustBackend)?
    let evaluator: String
    let start = ContinuousClock.now

    init(_ trust: Trust, host: String, backend: (any TrustBackend)?, evaluator: String) {
        self.trust = trust
        self.host = host
        self.backend = backend
        self.evaluator = evaluator
    }

    var backendName: String { (backend ?? TrustBackends.defaultBackend)?.name ?? "none" }

    /// Refuses an empty trust up front.
    func requireCertificates() throws {
        guard !trust.certificates.isEmpty else {
            throw error(.noCertificatesPresented, "the server presented no certificate")
        }
    }

    /// Evaluates `trust` (already carrying its anchors and policies) and returns the validated
    /// chain, or throws `.hostValidationFailed` when the only failures are the name, else
    /// `.defaultEvaluationFailed`.
    func validate(_ trust: Trust, expectedPins: [String] = [], pinnedCertificates: [Certificate] = [],
                  what: String = "default validation") throws -> ValidatedChain {
        try validated(trust.evaluate(using: backend), expectedPins: expectedPins, pinnedCertificates: pinnedCertificates, what: what)
    }

    /// The validated chain of `evaluation`, or the refusal its failures call for.
    func validated(_ evaluation: TrustEvaluation, expectedPins: [String] = [], pinnedCertificates: [Certificate] = [],
                   what: String = "default validation") throws -> ValidatedChain {
        if let chain = evaluation.validatedChain { return chain }
        let primary = evaluation.primaryFailure
        let nameOnly = evaluation.failures.allSatisfy { $0.code == .hostnameMismatch || $0.code == .ipAddressMismatch }
            && !evaluation.failures.isEmpty
        throw error(nameOnly ? .hostValidationFailed : .defaultEvaluationFailed,
                    "\(what) failed: \(primary.map { "\($0)" } ?? "no chain")",
                    evaluation: evaluation, expectedPins: expectedPins, pinnedCertificates: pinnedCertificates)
    }

    func error(_ code: ServerTrustError.Code, _ message: String, evaluation: TrustEvaluation? = nil,
               builtChain: [Certificate]? = nil, expectedPins: [String] = [], pinnedCertificates: [Certificate] = []) -> ServerTrustError {
        ServerTrustError(code, host: host, message: message, evaluator: evaluator, presentedChain: trust.certificates,
                         evaluation: evaluation, builtChain: builtChain, expectedPins: expectedPins,
                         pinnedCertificates: pinnedCertificates)
    }

    func decision(_ chain: ValidatedChain?, _ reason: String, pinMatch: PinMatch? = nil,
                  steps: [ServerTrustDecision] = []) -> ServerTrustDecision {
        ServerTrustDecision(host: host, presentedChain: trust.certificates, validatedChain: chain, evaluator: evaluator,
                            reason: reason, pinMatch: pinMatch, backendName: chain?.backendName ?? backendName,
                            duration: ContinuousClock.now - start, steps: steps)
    }
}

extension Certificate {
    /// How a pinned whole certificate is named in decisions and errors.
    var certificatePin: String { "certificate sha256:" + sha256Fingerprint.hexString(separator: "") }
}

extension ServerTrustEvaluating {
    /// The lint of a pinning evaluator: an empty pin list refuses every chain (`noPins`), and an
    /// unchecked host name lets a pinned chain serve any host (`hostUnchecked`), in that order.
    func pinningLint(hasPins: Bool, validatesHost: Bool, noPins: String, hostUnchecked: String) -> [LintWarning] {
        var warnings: [LintWarning] = []
        if !hasPins { warnings.append(LintWarning(.noPins, subject: evaluatorName, noPins)) }
        if !validatesHost { warnings.append(LintWarning(.domainValidationDisabled, subject: evaluatorName, hostUnchecked)) }
        return warnings
    }
}
