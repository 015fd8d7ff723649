/// The outcome of evaluating a `Trust`: the verdict, the chain as built, and every failure.
///
/// The analogue of what `SecTrustEvaluateWithError` and `SecTrustGetTrustResult` report together.
public struct TrustEvaluation: Sendable, CustomStringConvertible {
    /// Mirrors `SecTrustResultType`.
    public enum Result: String, Sendable, Hashable {
        /// Trusted through the system trust store (`kSecTrustResultUnspecified`).
        case unspecified
        /// Trusted through an anchor the app supplied explicitly (`kSecTrustResultProceed`).
        case proceed
        /// Not trusted, but only for reasons an app could knowingly override (date, name, anchor).
        case recoverableTrustFailure
        /// Not trusted, and no override should ever accept it (bad signature, malformed or misissued chain).
        case fatalTrustFailure
    }

    /// True only when the chain reached an anchor and no failure of any kind was found.
    public let isTrusted: Bool
    public let result: Result
    /// The chain as built, leaf first, ending at the anchor when one was reached; as far as it
    /// could be built when validation failed.
    public let chain: [Certificate]
    /// Every failure found, most fundamental first (see ``TrustFailureCode/rank``), then nearest the leaf, without
    /// duplicates; empty exactly when `isTrusted`. The order is the same on every backend, so
    /// `failures.first` is a comparable "primary" reason.
    public let failures: [TrustFailure]
    /// The name of the backend that evaluated.
    public let backendName: String
    /// What the trusted path is valid for under RFC 5280 §6.1 certificate-policy processing (the
    /// authority- and user-constrained policy sets); nil when not trusted, and for the native
    /// verifier, which does not report them.
    public internal(set) var certificatePolicies: ValidatedCertificatePolicies?
    /// What revocation checking found, per certificate of ``chain`` it covered (empty when
    /// revocation was off, or no complete path was reached).
    public internal(set) var revocation: [CertificateRevocationStatus] = []
    /// What Certificate Transparency checking found (nil when no CT policy was given, or no path
    /// was trusted before it).
    public internal(set) var certificateTransparency: CertificateTransparencyReport?
    /// Set only by ``ResultCheck`` (the last gate every trusted result of an evaluation passes):
    /// an evaluation made with the public initializer never has it, so a `ValidatedChain` cannot
    /// be fabricated from a list of certificates.
    package internal(set) var passedLastGate = false

    /// Builds an evaluation. Trust requires an empty failure list and a non-empty chain: the
    /// verdict is derived, never passed in, so no backend can report "trusted" with failures.
    ///
    /// - Parameters:
    ///   - chain: the chain as built, leaf first.
    ///   - failures: every failure found, in any order (they are ranked and de-duplicated here).
    ///   - backendName: the backend that evaluated.
    ///   - anchoredAtCustomAnchor: whether the chain ends at an anchor the app supplied, which
    ///     makes a trusted result `.proceed` rather than `.unspecified`.
    public init(chain: [Certificate], failures: [TrustFailure], backendName: String, anchoredAtCustomAnchor: Bool) {
        self.chain = chain
        var seen = Set<TrustFailure>()
        self.failures = failures.enumerated()
            .sorted {
                ($0.element.code.rank, $0.element.certificateIndex ?? Int.max, $0.offset)
                    < ($1.element.code.rank, $1.element.certificateIndex ?? Int.max, $1.offset)
            }
            .map(\.element)
            .filter { seen.insert($0).inserted }
        self.backendName = backendName
        isTrusted = self.failures.isEmpty && !chain.isEmpty
        if isTrusted {
            result = anchoredAtCustomAnchor ? .proceed : .unspecified
        } else if failures.contains(where: { !$0.code.isRecoverable }) || failures.isEmpty {
            result = .fatalTrustFailure
        } else {
            result = .recoverableTrustFailure
        }
    }

    /// The first failure's code, the one a one-line report names.
    public var primaryFailure: TrustFailure? { failures.first }

    /// A one-line summary: `trusted` or `not trusted: expired at depth 0: certificate has expired`.
    public var description: String {
        if isTrusted { return "trusted (\(result.rawValue)) by \(backendName), chain of \(chain.count)" }
        guard let first = failures.first else { return "not trusted: no chain" }
        return "not trusted: \(first)"
    }
}

/// Thrown by `Trust.evaluateOrThrow()` when the chain is not trusted; carries the evaluation.
public struct TrustEvaluationError: Error, Sendable, CustomStringConvertible {
    public let evaluation: TrustEvaluation

    /// Wraps an untrusted evaluation, for callers that check `isTrusted` themselves and throw.
    public init(evaluation: TrustEvaluation) {
        self.evaluation = evaluation
    }

    public var description: String { evaluation.description }
}
