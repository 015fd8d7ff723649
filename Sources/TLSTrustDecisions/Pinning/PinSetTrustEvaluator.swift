import Foundation
import Logging
import TLSTrustCore

/// Trusts a chain that passes default validation and, when the host is pinned, matches a pin of
/// its pin set — TrustKit's, OkHttp's `CertificatePinner` and Android's pin-set semantics.
///
/// 1. Default validation always runs (the SSL policy for the host); a chain that fails it is
///    refused whatever the pins say. When the configuration names trust anchors for the host
///    (``PinningConfiguration/trustAnchors(for:)``: Android's `<trust-anchors>`), validation uses
///    exactly those anchors instead of the `Trust`'s, so "only my CA" is what is enforced.
/// 2. The host's set is the most specific one covering it (``PinningConfiguration/pinSet(for:)``).
///    No set, or an expired set: the validated chain is accepted as it is.
/// 3. A pin must match a certificate of the ``ValidatedChain`` at a position it allows — never of
///    the presented list — unless the chain ends at an anchor whose source overrides pins (Android's
///    `overridePins="true"`). On a mismatch a ``PinFailureReport`` goes to the reporter; an enforced set
///    refuses (``ServerTrustError/Code/pinSetFailed``), a report-only set accepts.
///
/// ```swift
/// let configuration = try PinningConfiguration(json: Data(contentsOf: configURL))
/// let evaluator = PinSetTrustEvaluator(configuration, reporter: FilePinFailureReporter(directory: reportsURL))
/// let decision = try evaluator.evaluate(trust, forHost: "api.example.com", using: backend)
/// ```
public struct PinSetTrustEvaluator: ServerTrustEvaluating {
    public let configuration: PinningConfiguration
    /// Where pin failures are reported; nil reports nothing.
    public let reporter: (any PinFailureReporter)?
    /// The port reports name (the evaluator is not told the connection's).
    public let port: Int
    /// The logger decisions go to; nil uses ``TrustLogging/logger``.
    public let logger: Logger?
    /// The log list and rules for the hosts the configuration requires Certificate Transparency
    /// of (``PinningConfiguration/requiresCertificateTransparency(for:)``), applied whatever the
    /// anchor, as Android's `<certificateTransparency enabled="true"/>` is. Nil: such a host is
    /// refused, since its requirement cannot be checked (TLSTrust ships no log list).
    public var certificateTransparency: CertificateTransparencyPolicy?

    /// - Parameters:
    ///   - configuration: the pin sets.
    ///   - reporter: default none. Wrap it in ``DeduplicatingPinFailureReporter`` to send each
    ///     distinct report once a day.
    ///   - port: default 443.
    ///   - logger: default ``TrustLogging/logger``.
    public init(_ configuration: PinningConfiguration, reporter: (any PinFailureReporter)? = nil, port: Int = 443, logger: Logger? = nil) {
        self.configuration = configuration
        self.reporter = reporter
        self.port = port
        self.logger = logger
        self.pinsForEveryHost = nil
    }

    /// Pins that apply to every host the evaluator is asked about, a DNS name or an IP literal
    /// (curl's `--pinnedpubkey`); nil: the configuration's sets decide.
    public let pinsForEveryHost: [SPKIPin]?

    /// An evaluator whose pins apply to whatever host it is asked about — an IP literal included,
    /// which a domain's pin set cannot name — as curl's `--pinnedpubkey` pins a connection.
    ///
    /// - Parameters:
    ///   - pins: at least one; any one must match a certificate of the validated chain.
    ///   - reporter: default none.
    ///   - port: the port reports name; default 443.
    ///   - logger: default ``TrustLogging/logger``.
    /// - Throws: ``PinningError`` `.invalidPinSet` for no pins or more than ``PinSet/maximumPins``.
    public init(pinsForEveryHost pins: [SPKIPin], reporter: (any PinFailureReporter)? = nil, port: Int = 443, logger: Logger? = nil) throws {
        _ = try PinSet(connectionHost: "check", pins: pins)
        self.configuration = try PinningConfiguration()
        self.reporter = reporter
        self.port = port
        self.logger = logger
        self.pinsForEveryHost = pins
    }

    /// An evaluator for one pin set.
    public init(_ pinSet: PinSet, reporter: (any PinFailureReporter)? = nil, port: Int = 443, logger: Logger? = nil) {
        self.init(PinningConfiguration(single: pinSet), reporter: reporter, port: port, logger: logger)
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        var trust = trust
        let anchors = configuration.trustAnchors(for: host)
        if let anchors { trust.anchors = anchors.trustAnchors }
        let requiresTransparency = configuration.requiresCertificateTransparency(for: host)
        if requiresTransparency, var policy = certificateTransparency {
            policy.appliesToCustomAnchors = true
            trust.certificateTransparency = policy
        }
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        return try logged(run) {
            try run.requireCertificates()
            if requiresTransparency, certificateTransparency == nil { throw run.error(.defaultEvaluationFailed, Self.noLogList(host)) }
            let set = try pinSet(for: host)
            let chain = try run.validate(trust.forServer(host: host), expectedPins: set?.pins.map(\.text) ?? [])
            return try judge(chain, set: set, run: run, anchors: anchors)
        }
    }

    /// Applies the pin set of `host` (steps 2 and 3 above) to a chain another evaluation already
    /// validated, without validating again.
    ///
    /// For callers that ask one evaluator for the decision and check further pins on the chain it
    /// validated — `tlstrust evaluate --pin` checks ``init(pinsForEveryHost:reporter:port:logger:)``
    /// on the chain of the engine, a pinning configuration or a `SecurityPolicy` — so that one
    /// invocation evaluates once and the pin rule is still this evaluator's.
    ///
    /// - Parameters:
    ///   - chain: a validated chain for `host` (`TrustEvaluation.validatedChain`).
    ///   - trust: the trust it was validated from (its presented chain goes into errors and reports).
    ///   - host: the host the chain was validated for.
    /// - Throws: ``ServerTrustError`` `.pinSetFailed` as ``evaluate(_:forHost:using:)`` does, and
    ///   `.defaultEvaluationFailed` when the configuration names trust anchors for `host` and the
    ///   chain does not end at one of them: it was validated to other anchors than this
    ///   evaluator's validation would use.
    public func evaluate(validatedChain chain: ValidatedChain, of trust: Trust, forHost host: String) throws -> ServerTrustDecision {
        let anchors = configuration.trustAnchors(for: host)
        let run = EvaluationRun(trust, host: host, backend: nil, evaluator: evaluatorName)
        return try logged(run) {
            let set = try pinSet(for: host)
            if configuration.requiresCertificateTransparency(for: host) {
                guard certificateTransparency != nil else { throw run.error(.defaultEvaluationFailed, Self.noLogList(host)) }
                guard let report = chain.evaluation.certificateTransparency, report.isEnforced, report.isCompliant else {
                    throw run.error(.defaultEvaluationFailed,
                                    "the configuration requires Certificate Transparency for \(host), and the chain was not validated under it",
                                    evaluation: chain.evaluation)
                }
            }
            if let anchors, !anchors.trustAnchors.allCertificates.contains(chain.anchor) {
                throw run.error(.defaultEvaluationFailed,
                                "the chain ends at \(chain.anchor.subject), not at a trust anchor the configuration names for \(host)",
                                evaluation: chain.evaluation, expectedPins: set?.pins.map(\.text) ?? [])
            }
            return try judge(chain, set: set, run: run, anchors: anchors)
        }
    }

    static func noLogList(_ host: String) -> String {
        "the configuration requires Certificate Transparency for \(host), and the evaluator has no log list to check it with (PinSetTrustEvaluator.certificateTransparency)"
    }

    /// Logs the decision or the refusal of `body`, as every evaluation of this evaluator is logged.
    private func logged(_ run: EvaluationRun, _ body: () throws -> ServerTrustDecision) throws -> ServerTrustDecision {
        let logger = self.logger ?? TrustLogging.logger
        do {
            let decision = try body()
            TrustLogging.log(decision, logger: logger)
            return decision
        } catch let error as ServerTrustError {
            TrustLogging.log(error, duration: ContinuousClock.now - run.start, backend: run.backendName, logger: logger)
            throw error
        }
    }

    /// The set that governs `host`: the pins for every host, or the configuration's.
    private func pinSet(for host: String) throws -> PinSet? {
        try pinsForEveryHost.map { try PinSet(connectionHost: host, pins: $0) } ?? configuration.pinSet(for: host)
    }

    /// Steps 2 and 3 on a validated chain.
    private func judge(_ chain: ValidatedChain, set: PinSet?, run: EvaluationRun, anchors: ConfiguredTrustAnchors?) throws -> ServerTrustDecision {
        let host = run.host
        let trust = run.trust
        let logger = self.logger ?? TrustLogging.logger
        let expected = set?.pins.map(\.text) ?? []
        guard let set else {
            return run.decision(chain, "validated; \(host) is not pinned")
        }
        let date = trust.verificationDate ?? Date()
        if set.isExpired(at: date), let expiration = set.expiration {
            return run.decision(chain, "validated; the pin set of \(set.domain) expired on \(ISO8601DateFormatter().string(from: expiration)), pins not checked")
        }
        if let match = set.match(chain) {
            return run.decision(chain, "validated; a pin of \(set.pattern) matched", pinMatch: match)
        }
        if let anchors, anchors.overridesPins(anchor: chain.anchor) {
            return run.decision(chain, "validated; pins of \(set.pattern) not checked: the chain ends at \(chain.anchor.subject), whose source overrides pins (overridePins)")
        }
        let reason = "no pin of \(set.domain) matches a certificate of the validated chain at an allowed position"
        if let reporter {
            reporter.report(PinFailureReport(date: date, hostname: host, port: port, pinSet: set, validatedChain: chain.certificates,
                                             reason: reason), pinSet: set)
        }
        guard set.enforces else {
            TrustLogging.logReportOnly(host: host, domain: set.domain, backend: chain.backendName, logger: logger)
            return run.decision(chain, "validated; \(reason) — report-only, reported, not refused")
        }
        throw run.error(.pinSetFailed, reason, evaluation: chain.evaluation, expectedPins: expected)
    }

    /// The configuration's warnings (``PinningConfiguration/lint(chains:at:)``, without chains).
    public func lint() -> [LintWarning] { configuration.lint() }
}

extension ServerTrustEvaluating where Self == PinSetTrustEvaluator {
    /// Default validation plus the SPKI pin sets of `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: the pin sets.
    ///   - reporter: where pin failures are reported; default none.
    public static func pinSets(_ configuration: PinningConfiguration, reporter: (any PinFailureReporter)? = nil) -> PinSetTrustEvaluator {
        PinSetTrustEvaluator(configuration, reporter: reporter)
    }
}
