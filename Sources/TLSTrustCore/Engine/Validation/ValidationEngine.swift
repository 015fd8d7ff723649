/// TLSTrust's one validation engine: path building, RFC 5280 path validation, name constraints,
/// server identity and algorithm policy, in Swift, the same on every backend.
///
/// The backend is used only as a crypto provider: it imports public keys (cached per certificate)
/// and verifies signatures. Every rule lives here, once (`docs/validation.md`).
///
/// The outcome, in order of preference:
/// 1. a path that validated: trusted, `.proceed` or `.unspecified`;
/// 2. the first complete path (one that reached an anchor) with every failure it has;
/// 3. no path reached an anchor: `unknownIssuer` (or `untrustedRoot` when the path ends at a
///    self-issued certificate) at the top of the deepest path found, plus any signature that failed;
/// and `budgetExhausted` or `unsupported` when the work was cut short.
/// The engine's side of the one door: ``Trust/evaluate(using:)`` (which every entry point —
/// the tool, `SecTrust`, the evaluators, NIO, TLS handshakes — goes through) resolves the request
/// and calls this. The verified-chain cache is part of the engine: a chain already verified for
/// the same question is answered from it. Every trusted result passes `ResultCheck`.
enum ValidationDoor {
    static func evaluate(_ request: TrustEvaluationRequest, provider: some TrustBackend) -> TrustEvaluation {
        var evaluation = VerifiedChainCache.evaluate(request, backend: provider)
        guard request.transparency != nil, evaluation.isTrusted else { return evaluation }
        TransparencyCheck.apply(to: &evaluation, request: request, backend: provider)
        return evaluation
    }
}

struct ValidationEngine<Backend: TrustBackend> {
    let request: TrustEvaluationRequest
    let backend: Backend
    var budget: ValidationBudget = .standard

    func evaluate() -> TrustEvaluation { evaluateReportingReuse().evaluation }

    /// Evaluates, and says whether the result may be reused at any other instant within its
    /// path's validity (``VerifiedChainCache``): true only for a trusted path that was the first
    /// complete path the builder reached. Then nothing that came before it depended on the date
    /// (dead ends come from names, key identifiers and signatures), so at another instant within
    /// the path's validity the builder would reach and accept the same path again.
    func evaluateReportingReuse() -> (evaluation: TrustEvaluation, reusable: Bool) {
        var meter = BudgetMeter(budget)
        let fetchBudget = RevocationFetchBudget()
        var outcome = PathBuilder(request: request, backend: backend, budget: budget, fetchBudget: fetchBudget).build(meter: &meter)
        var issuerNotes: [String] = []
        // No path reached an anchor with what the peer sent: when the app allows the network, ask
        // the caIssuers URL of the certificate where building stopped, and build again with what
        // came back — until a path is found, or nothing new comes (each URL is asked once).
        if let fetcher = request.revocation.fetcher {
            var issuers = MissingIssuerFetch(fetcher: fetcher, budget: fetchBudget, date: request.verificationDate)
            while outcome.trusted == nil, outcome.firstRejected == nil, outcome.exhausted == nil {
                let top = outcome.deepestDeadEnd.last ?? request.leaf
                guard !top.isSelfIssued, issuers.fetchIssuers(of: top) else { break }
                outcome = PathBuilder(request: request, backend: backend, budget: budget, fetched: issuers.certificates,
                                      fetchBudget: fetchBudget).build(meter: &meter)
            }
            issuerNotes = issuers.notes
        }
        let name = backend.name

        if let path = outcome.trusted {
            var trusted = request.evaluation(chain: path, failures: [], backendName: name)
            trusted.certificatePolicies = outcome.trustedPolicies
            trusted.revocation = outcome.revocation
            let evaluation = ResultCheck.checked(trusted, for: request)
            return (evaluation, evaluation.isTrusted && outcome.firstRejected == nil && outcome.exhausted == nil)
        }
        return (untrusted(outcome, issuerNotes: issuerNotes), false)
    }

    private func untrusted(_ outcome: PathBuilder<Backend>.Outcome, issuerNotes: [String] = []) -> TrustEvaluation {
        let name = backend.name
        if let unsupported = outcome.unsupported {
            return request.refusal(.unsupported, unsupported, backendName: name)
        }
        var failures: [TrustFailure] = []
        var chain: [Certificate]
        if let exhausted = outcome.exhausted {
            failures.append(TrustFailure(.budgetExhausted, certificateIndex: nil, detail: exhausted.description))
        }
        if let rejected = outcome.firstRejected {
            chain = rejected.path
            failures += rejected.failures
        } else {
            chain = outcome.deepestDeadEnd.isEmpty ? [request.leaf] : outcome.deepestDeadEnd
            let top = chain.count - 1
            let selfIssued = chain[top].isSelfIssued
            if outcome.exhausted == nil {
                failures.append(TrustFailure(
                    selfIssued ? .untrustedRoot : .unknownIssuer, certificateIndex: top, detail: selfIssued
                        ? "the path ends at a self-issued certificate that is not an anchor"
                        : "no issuer of '\(chain[top].issuer)' among the anchors and intermediates"
                          + (issuerNotes.isEmpty ? "" : " (\(issuerNotes.joined(separator: "; ")))")))
            }
            // A signature that failed below the top means a forged certificate. At a self-issued
            // top it only means a same-named anchor holds another key: the root is simply not trusted.
            failures += outcome.edgeFailures.filter {
                let index = $0.certificateIndex ?? 0
                return index < chain.count && !(selfIssued && index == top)
            }
        }
        var evaluation = request.evaluation(chain: chain, failures: failures, backendName: name)
        if outcome.firstRejected != nil { evaluation.revocation = outcome.revocation }
        return evaluation
    }
}
