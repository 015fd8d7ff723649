import Foundation
import Logging
import TLSTrustCore

/// Logging of trust decisions through swift-log, silent unless the application asks for it.
///
/// Every record is at `.debug` (host, backend, verdict, deciding rule, duration, the chain's
/// subjects and pins) or `.trace` (the validated chain as PEM); never a private key, never a whole
/// certificate above `.trace`. swift-log's default handler prints `.info` and above, so nothing
/// appears until the application bootstraps a handler at `.debug` or passes a logger:
///
/// ```swift
/// LoggingSystem.bootstrap { label in
///     var handler = StreamLogHandler.standardError(label: label)
///     handler.logLevel = .debug
///     return handler
/// }
/// ```
///
/// Entry points that decide (``PinSetTrustEvaluator``) also take an explicit `logger:`; a
/// process-wide one can be chosen once with ``bootstrap(_:)`` (swift-log's pattern: a library never
/// has to bootstrap). Evaluators of other kinds log through ``log(_:logger:)`` and
/// ``log(_:duration:backend:logger:)``.
public enum TrustLogging {
    /// The label of the default logger.
    public static let label = "tlstrust"

    private static let chosen = Locked<Logger?>(nil)

    /// Makes `logger` the default for every evaluation that is not given one. Only the first call
    /// takes effect.
    ///
    /// - Returns: false when a default had already been chosen.
    @discardableResult
    public static func bootstrap(_ logger: Logger) -> Bool {
        chosen.withLock { current in
            guard current == nil else { return false }
            current = logger
            return true
        }
    }

    /// The bootstrapped logger, or one labelled ``label`` made through swift-log's `LoggingSystem`
    /// (so it follows whatever handler the application bootstrapped, when it did).
    public static var logger: Logger {
        chosen.withLock { $0 } ?? Logger(label: label)
    }

    /// Logs an accepted chain.
    public static func log(_ decision: ServerTrustDecision, logger: Logger? = nil) {
        let logger = logger ?? Self.logger
        guard logger.logLevel <= .debug else { return }
        var metadata = metadata(host: decision.host, backend: decision.backendName, verdict: "trusted",
                                rule: "\(decision.evaluator)", duration: decision.duration,
                                chain: decision.validatedChain?.certificates ?? [])
        if let pin = decision.pinMatch { metadata["tlstrust.pin"] = "\(pin.pin) at \(pin.chainIndex)" }
        logger.debug("\(decision.host): trusted by \(decision.evaluator): \(decision.reason)", metadata: metadata)
        if logger.logLevel <= .trace, let chain = decision.validatedChain {
            logger.trace("\(decision.host): validated chain", metadata: ["tlstrust.chain_pem": .array(chain.certificates.map { "\($0.pemEncoded)" })])
        }
    }

    /// Logs a refusal, with the time it took and the backend it ran on.
    public static func log(_ error: ServerTrustError, duration: Duration, backend: String, logger: Logger? = nil) {
        let logger = logger ?? Self.logger
        guard logger.logLevel <= .debug else { return }
        var metadata = metadata(host: error.host, backend: error.evaluation?.backendName ?? backend, verdict: "refused",
                                rule: "\(error.evaluator): \(error.code)", duration: duration, chain: error.builtChain)
        if let failure = error.evaluation?.primaryFailure { metadata["tlstrust.failure"] = "\(failure.code.identifier)" }
        logger.debug("\(error.host): refused by \(error.evaluator) (\(error.code)): \(error.message)", metadata: metadata)
    }

    /// Logs a pin-set mismatch that did not refuse (report-only).
    static func logReportOnly(host: String, domain: String, backend: String, logger: Logger) {
        logger.debug("\(host): no pin of \(domain) matched the validated chain; report-only, not refused",
                     metadata: ["tlstrust.host": "\(host)", "tlstrust.backend": "\(backend)", "tlstrust.verdict": "trusted (pin mismatch reported)",
                                "tlstrust.rule": "PinSetTrustEvaluator: report-only"])
    }

    /// The fields every decision's record carries; the chain (subject and pin of each certificate)
    /// only when there is one.
    private static func metadata(host: String, backend: String, verdict: String, rule: String,
                                 duration: Duration, chain: [Certificate]) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "tlstrust.host": "\(host)",
            "tlstrust.backend": "\(backend)",
            "tlstrust.verdict": "\(verdict)",
            "tlstrust.rule": "\(rule)",
            "tlstrust.duration_us": "\(micros(duration))",
        ]
        if !chain.isEmpty { metadata["tlstrust.chain"] = .array(chain.map { "\($0.subject) \($0.publicKey.pin)" }) }
        return metadata
    }

    private static func micros(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000 + d.components.attoseconds / 1_000_000_000_000
    }
}
