import TLSTrust

extension TrustEvaluation {
    /// The primary failure when it is `.unsupported`: the backend could not honour the request,
    /// so the evaluation is no verdict on the chain.
    package var unsupportedFailure: TrustFailure? {
        guard let first = primaryFailure, first.code == .unsupported else { return nil }
        return first
    }
}
