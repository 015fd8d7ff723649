import Logging
import TLSTrustCore

/// Any evaluator, with each decision and refusal logged through ``TrustLogging``.
///
/// Wraps evaluators that do not log by themselves (``PinSetTrustEvaluator`` does), so that an app
/// or a ``ServerTrustManager`` entry gets host, backend, verdict, deciding rule and duration in its
/// logs without changing the evaluator:
///
/// ```swift
/// let evaluator = DefaultTrustEvaluator().logged(to: logger)
/// ```
public struct LoggingTrustEvaluator<Wrapped: ServerTrustEvaluating>: ServerTrustEvaluating {
    public let wrapped: Wrapped
    /// The logger; nil uses ``TrustLogging/logger`` at each evaluation.
    public let logger: Logger?

    /// - Parameters:
    ///   - wrapped: the evaluator that decides.
    ///   - logger: default ``TrustLogging/logger``.
    public init(_ wrapped: Wrapped, logger: Logger? = nil) {
        self.wrapped = wrapped
        self.logger = logger
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let start = ContinuousClock.now
        do {
            let decision = try wrapped.evaluate(trust, forHost: host, using: backend)
            TrustLogging.log(decision, logger: logger)
            return decision
        } catch let error as ServerTrustError {
            let backendName = (backend ?? TrustBackends.defaultBackend)?.name ?? "none"
            TrustLogging.log(error, duration: ContinuousClock.now - start, backend: backendName, logger: logger)
            throw error
        }
    }

    public func lint() -> [LintWarning] { wrapped.lint() }
}

extension ServerTrustEvaluating {
    /// This evaluator with its decisions logged (see ``LoggingTrustEvaluator``).
    ///
    /// - Parameter logger: default ``TrustLogging/logger``.
    public func logged(to logger: Logger? = nil) -> LoggingTrustEvaluator<Self> {
        LoggingTrustEvaluator(self, logger: logger)
    }
}
