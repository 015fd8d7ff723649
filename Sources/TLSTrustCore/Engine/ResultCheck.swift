/// The last gate before an evaluation is reported as trusted, whatever produced it (the engine or
/// a library's native verifier): a trusted result must describe a real path for *this* request.
///
/// - the chain starts at the requested leaf;
/// - each certificate's issuer name matches the next one's subject (RFC 5280 §7.1 comparison);
/// - the chain ends at an anchor of the request.
///
/// A trusted evaluation that fails any of these becomes an untrusted one with `.internalError`:
/// a verifier bug must never turn into trust.
enum ResultCheck {
    static func checked(_ evaluation: TrustEvaluation, for request: TrustEvaluationRequest) -> TrustEvaluation {
        guard evaluation.isTrusted else { return evaluation }
        if let problem = problem(with: evaluation.chain, for: request) {
            return TrustEvaluation(
                chain: evaluation.chain,
                failures: [TrustFailure(.internalError, certificateIndex: nil, detail: "\(evaluation.backendName) reported trust for an inconsistent chain: \(problem)")],
                backendName: evaluation.backendName, anchoredAtCustomAnchor: false)
        }
        var checked = evaluation
        checked.passedLastGate = true
        return checked
    }

    static func problem(with chain: [Certificate], for request: TrustEvaluationRequest) -> String? {
        guard let first = chain.first else { return "the chain is empty" }
        guard first == request.leaf else { return "the chain does not start at the leaf" }
        for (child, parent) in zip(chain, chain.dropFirst())
        where child.issuer != parent.subject && child.issuer.normalized != parent.subject.normalized {
            return "'\(child.subject)' is not issued by '\(parent.subject)'"
        }
        guard let last = chain.last, request.anchors.index.contains(last) else {
            return "the chain does not end at an anchor of the request"
        }
        return nil
    }
}
