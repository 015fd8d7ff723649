import TLSTrustCore
/// Trusts a chain only when every one of its evaluators does, in order.
///
/// The analogue of Alamofire's `CompositeTrustEvaluator`. The first refusal is thrown as it is;
/// the decision lists each evaluator's decision in ``ServerTrustDecision/steps`` and reports the
/// last one's chain and pin. Unlike Alamofire, an empty composite refuses (it would otherwise
/// accept every chain).
///
/// ```swift
/// let evaluator: any ServerTrustEvaluating = .composite([.default, .publicKeys([key, backupKey])])
/// ```
public struct CompositeTrustEvaluator: ServerTrustEvaluating {
    public let evaluators: [any ServerTrustEvaluating]

    public init(evaluators: [any ServerTrustEvaluating]) {
        self.evaluators = evaluators
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        guard !evaluators.isEmpty else { throw run.error(.invalidConfiguration, "a composite evaluator with no evaluator") }
        var steps: [ServerTrustDecision] = []
        for evaluator in evaluators {
            steps.append(try evaluator.evaluate(trust, forHost: host, using: backend))
        }
        let last = steps[steps.count - 1]
        let chain = steps.last(where: \.isValidated)?.validatedChain
        return run.decision(chain, "all \(steps.count) evaluators accepted: " + steps.map(\.evaluator).joined(separator: ", "),
                            pinMatch: steps.last(where: { $0.pinMatch != nil })?.pinMatch ?? last.pinMatch, steps: steps)
    }

    public func lint() -> [LintWarning] {
        evaluators.isEmpty
            ? [LintWarning(.noPins, subject: evaluatorName, "no evaluator: every chain is refused")]
            : evaluators.flatMap { $0.lint() }
    }
}

extension ServerTrustEvaluating where Self == CompositeTrustEvaluator {
    /// Every evaluator must accept, in order.
    public static func composite(_ evaluators: [any ServerTrustEvaluating]) -> CompositeTrustEvaluator {
        CompositeTrustEvaluator(evaluators: evaluators)
    }
}
