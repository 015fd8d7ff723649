import TLSTrustCore
/// ACCEPTS EVERY CHAIN WITHOUT LOOKING AT IT. FOR TESTS AGAINST THROWAWAY SERVERS ONLY.
///
/// > Warning: Never ship this. With it, anyone on the network path — a café's Wi-Fi, a debugging
/// > proxy, a compromised router — can read and change every byte your app exchanges with the
/// > host. It exists so that tests can talk to a local server with a certificate minted on the
/// > spot; even there, prefer ``AnchoredTrustEvaluator`` with the test CA, which costs one line.
///
/// It has no dot-shorthand on purpose, so that it cannot be picked by autocompletion, and its
/// `lint()` always reports `LintWarning.Code.trustEvaluationDisabled`. Its decision has no
/// validated chain (``ServerTrustDecision/validatedChain`` is nil).
public struct DisabledTrustEvaluatorForTestingOnly: ServerTrustEvaluating {
    /// Creates the evaluator that accepts everything. Read the type's warning first.
    public init() {}

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
            .decision(nil, "TRUST EVALUATION DISABLED: nothing was checked")
    }

    public func lint() -> [LintWarning] {
        [LintWarning(.trustEvaluationDisabled, subject: evaluatorName, "trust evaluation is disabled: every chain is accepted; never ship this")]
    }
}
