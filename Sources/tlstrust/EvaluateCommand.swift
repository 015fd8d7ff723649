import ArgumentParser
import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustToolSupport

/// `tlstrust evaluate`: one chain, one backend, a verdict in the exit status.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluate a certificate chain on one backend (exit 0 trusted, 1 not trusted, 2 bad input or unsupported)."
    )

    // The contract's own options come first in --help (one "Evaluation" section), then pinning.
    @OptionGroup(title: "Evaluation") var verifier: VerifierOptions

    @OptionGroup(title: "Evaluation") var options: EvaluationOptions

    @OptionGroup(title: "Revocation") var revocation: RevocationOptions

    @OptionGroup(title: "Certificate Transparency") var transparency: TransparencyOptions

    @OptionGroup(title: "Pinning") var pinning: PinningOptions

    var backend: String { verifier.backend }
    var engine: TrustEngine { verifier.engine }

    @Flag(help: "Print one JSON object describing the evaluation.")
    var json = false

    func run() throws {
        let backend = try TrustBackends.named(backend)
        let (trust, request, rules) = try prepare(for: backend)
        let outcome = try rules.decide(trust, engine: engine, backend: backend, host: options.hostname)

        if json {
            print(EvaluationJSON.render(outcome.evaluation, backend: backend, request: request, engine: engine,
                                        input: options.jsonInput(verificationDate: trust.verificationDate),
                                        trusted: outcome.isTrusted, rule: outcome.ruleRecord))
        } else if outcome.isTrusted {
            let chain = outcome.evaluation.chain
            let anchor = chain.last.map { " via \($0.subject)" } ?? ""
            let pin = outcome.pinMatch.map { "; pin \($0.pin) matched at \($0.chainIndex)" } ?? ""
            let rule = outcome.rule.map { " by \($0)" } ?? ""
            print("trusted: \(trust.certificates.first?.subject.description ?? "")\(anchor)\(rule)\(pin) [\(backend.name)]".terminalSafe)
        } else if let refusal = outcome.refusal {
            print("not trusted: \(refusal.code) by \(refusal.rule): \(refusal.message) [\(backend.name)]".terminalSafe)
        } else {
            print("\(outcome.evaluation) [\(backend.name)]".terminalSafe)
        }
        if !outcome.isTrusted { throw ExitCode(1) }
    }

    /// The trust, its resolved request and the rules the options describe; every unusable input
    /// is thrown here (exit 2), before anything is evaluated.
    func prepare(for backend: any TrustBackend) throws -> (Trust, TrustEvaluationRequest, EvaluationRules) {
        let pins = try pinning.parsedPins()
        let configuration = try pinning.configuration()
        if configuration != nil && options.hostname == nil {
            throw TLSTrustError(.invalidArgument, "--config needs --hostname: pin sets apply per host")
        }
        let rules = try EvaluationRules(pins: pins, configuration: configuration, policy: try pinning.securityPolicy())
        if engine == .native, !rules.isEmpty {
            // The rules are decided by the library's evaluators, and only the engine decides for them.
            throw TLSTrustError(.invalidArgument, "--engine native asks the library's verifier for comparison; --pin, --config and --af-mode are decided with --engine core")
        }
        var trust = try options.makeTrust()
        try revocation.apply(to: &trust)
        try transparency.apply(to: &trust)
        // A configuration that names trust anchors for the host means exactly those: validation
        // uses them (so the system store cannot vouch for a proxy), and --anchors beside them
        // would be a second, contradictory answer.
        if let configuration, let host = options.hostname,
           let anchors = try ConfigurationFileOptions.anchors(of: configuration, for: host, anchorsGiven: options.anchors != nil) {
            trust.anchors = anchors
        }
        // Resolve the request here so that unusable input is exit 2, not a verdict.
        return (trust, try trust.makeRequest(for: backend), rules)
    }
}

/// `--backend` and `--engine`: which verifier `evaluate` asks.
struct VerifierOptions: ParsableArguments {
    @Option(help: "A registered backend: see 'tlstrust backends'.")
    var backend: String

    @Option(help: "Which verifier decides: core (TLSTrust's validation engine, the default) or native (the library's own verifier, for comparison).")
    var engine: TrustEngine = .core
}

/// `evaluate`'s rules beyond validation, as the library's own evaluators: each rule is decided
/// by the evaluator that implements it, never again here.
///
/// One invocation evaluates once. The decision comes from one evaluator — `SecurityPolicy`
/// (`--af-mode`), `PinSetTrustEvaluator` (`--config`), both in a `CompositeTrustEvaluator`, or,
/// with neither, the engine on the `Trust` as given — and `--pin` is then checked by
/// `PinSetTrustEvaluator(pinsForEveryHost:)` on the chain that decision validated, without
/// validating again. (`SecurityPolicy` in certificate mode validates twice by AFNetworking's
/// design, and `--af-mode` with `--config` asks two evaluators two different questions: each
/// validates its own.)
struct EvaluationRules {
    /// `--pin`: the pins that must match the validated chain, whatever the host.
    let pins: PinSetTrustEvaluator?
    let pinCount: Int
    let configuration: PinningConfiguration?
    let policy: SecurityPolicy?

    /// - Throws: `TLSTrustError` `.invalidArgument` for more `--pin` values than a pin set holds.
    init(pins: [SPKIPin], configuration: PinningConfiguration?, policy: SecurityPolicy?) throws {
        do {
            self.pins = pins.isEmpty ? nil : try PinSetTrustEvaluator(pinsForEveryHost: pins)
        } catch let error as PinningError {
            throw TLSTrustError(.invalidArgument, "--pin: \(error.message)")
        }
        self.pinCount = pins.count
        self.configuration = configuration
        self.policy = policy
    }

    /// The rule name of `--config` for `host`, e.g. `PinSetTrustEvaluator(example.com)`.
    static func configurationRule(_ configuration: PinningConfiguration, host: String) -> String {
        "PinSetTrustEvaluator" + (configuration.pinSet(for: host).map { "(\($0.domain))" } ?? "")
    }

    /// Whether no rule beyond validation was given.
    var isEmpty: Bool { pins == nil && configuration == nil && policy == nil }

    /// Decides: one evaluation, then `--pin` on its validated chain. With `engine` `.native` (and
    /// no rule) the evaluation is the library verifier's, for comparison.
    ///
    /// - Throws: `TLSTrustError` `.unsupported` when the backend could not honour the request:
    ///   no verdict, exit 2.
    func decide(_ trust: Trust, engine: TrustEngine = .core, backend: any TrustBackend, host: String?) throws -> RuleOutcome {
        var outcome = engine == .native ? RuleOutcome(evaluation: trust.evaluateNatively(using: backend))
                                        : decision(trust, backend: backend, host: host)
        // A backend that cannot honour the request has given no verdict: that is exit 2, not 1.
        if let unsupported = outcome.evaluation.unsupportedFailure {
            throw TLSTrustError(.unsupported, "\(backend.name): unsupported: \(unsupported.detail)")
        }
        if outcome.isTrusted, let pins {
            outcome = outcome.requiring(pins, count: pinCount, trust: trust, host: host)
        }
        if outcome.refusal?.code == "pinSetFailed", let chain = outcome.evaluation.validatedChain?.certificates {
            outcome.refusal?.message += "; " + PinFailureHelp.sentence(chain)
            outcome.refusal?.validatedChainPins = PinFailureHelp.pins(of: chain)
        }
        return outcome
    }

    /// The verdict of the one evaluator that decides (or of the engine, when no rule does).
    private func decision(_ trust: Trust, backend: any TrustBackend, host: String?) -> RuleOutcome {
        let policyRule = policy.map { "SecurityPolicy(\($0.pinningMode))" }
        let configurationRule = configuration.flatMap { configuration in host.map { Self.configurationRule(configuration, host: $0) } }
        var evaluators: [any ServerTrustEvaluating] = []
        if let policy { evaluators.append(policy) }
        if let configuration, host != nil {
            // Android's <certificateTransparency> is judged with --ct-log-list's list and policy.
            var pinning = PinSetTrustEvaluator(configuration)
            pinning.certificateTransparency = trust.certificateTransparency
            evaluators.append(pinning)
        }
        guard !evaluators.isEmpty else { return RuleOutcome(evaluation: trust.evaluate(using: backend)) }
        do {
            let decision: ServerTrustDecision
            if let host {
                let evaluator = evaluators.count == 1 ? evaluators[0] : CompositeTrustEvaluator(evaluators: evaluators)
                decision = try evaluator.evaluate(trust, forHost: host, using: backend)
            } else if let policy {
                // Without a host only --af-mode applies (--config needs --hostname): AFNetworking's nil domain.
                decision = try policy.evaluate(trust, forDomain: nil, using: backend)
            } else {
                preconditionFailure("--config without --hostname is refused before evaluating")
            }
            let steps = decision.steps.isEmpty ? [decision] : decision.steps
            // The chain shown (and that --pin must match) is the one the first rule validated;
            // when it validated none (AFNetworking's allowInvalidCertificates), the engine's own
            // evaluation of the trust is the record — the only evaluation of this invocation.
            let evaluation = steps[0].validatedChain?.evaluation ?? trust.evaluate(using: backend)
            var outcome = RuleOutcome(evaluation: evaluation, isTrusted: true)
            for step in steps {
                if step.evaluator == policyRule {
                    outcome.rule = policyRule
                    outcome.pinMatch = step.pinMatch
                } else if let configurationRule {
                    if let match = step.pinMatch {
                        outcome.pinMatch = match
                        outcome.rule = configurationRule
                    } else if outcome.rule == nil {
                        outcome.rule = "\(configurationRule): \(step.reason)"
                    }
                }
            }
            return outcome
        } catch let error as ServerTrustError {
            let evaluation = error.evaluation ?? trust.evaluate(using: backend)
            let isPolicy = error.evaluator == policyRule
            // A pin set's validation that failed is validation's verdict, shown as without rules;
            // AFNetworking's evaluateServerTrust is a verdict of its own, whatever the reason.
            if !isPolicy, error.evaluation != nil, [.defaultEvaluationFailed, .hostValidationFailed].contains(error.code) {
                return RuleOutcome(evaluation: evaluation, isTrusted: false)
            }
            return RuleOutcome(evaluation: evaluation, isTrusted: false,
                               refusal: .init(error, rule: (isPolicy ? policyRule : configurationRule) ?? error.evaluator))
        } catch {
            let rule = policyRule ?? configurationRule ?? "evaluate"
            return RuleOutcome(evaluation: trust.evaluate(using: backend), isTrusted: false,
                               refusal: .init(code: "internalError", rule: rule, message: "\(error)"))
        }
    }
}

/// What `evaluate` decided and which rule decided it.
struct RuleOutcome {
    struct Refusal {
        /// The failure code, e.g. `pinSetFailed`.
        let code: String
        /// The rule, e.g. `--pin`, `PinSetTrustEvaluator`, `SecurityPolicy(publicKey)`.
        let rule: String
        var message: String
        /// For a pin failure: the pins of the validated chain, to fix the configuration with.
        var validatedChainPins: [PinFailureHelp.ChainPin]? = nil
    }

    /// The evaluation (the chain as built, the failures of validation).
    var evaluation: TrustEvaluation
    var isTrusted: Bool
    /// The rule that accepted, when one beyond validation did.
    var rule: String?
    var pinMatch: PinMatch?
    /// Set when a rule beyond validation refused.
    var refusal: Refusal?

    var ruleRecord: EvaluationJSON.RuleRecord? {
        if let refusal {
            return .init(rule: refusal.rule, code: refusal.code, message: refusal.message, pin: nil, pinIndex: nil,
                         validatedChainPins: refusal.validatedChainPins)
        }
        guard let rule else { return nil }
        return .init(rule: rule, code: nil, message: nil, pin: pinMatch?.pin, pinIndex: pinMatch?.chainIndex)
    }

    /// Requires `--pin` (`pins`, `count` of them) on the chain this outcome validated, through
    /// `PinSetTrustEvaluator`: no second evaluation.
    func requiring(_ pins: PinSetTrustEvaluator, count: Int, trust: Trust, host: String?) -> RuleOutcome {
        var next = self
        guard let chain = evaluation.validatedChain else {
            next.isTrusted = false
            next.refusal = Refusal(code: "pinSetFailed", rule: "--pin", message: "no chain was validated, so no pin can match")
            return next
        }
        do {
            let decision = try pins.evaluate(validatedChain: chain, of: trust, forHost: host ?? "")
            next.rule = rule ?? "--pin"
            next.pinMatch = decision.pinMatch
        } catch let error as ServerTrustError where error.code == .pinSetFailed {
            next.isTrusted = false
            next.refusal = Refusal(code: "pinSetFailed", rule: "--pin",
                                   message: "none of \(count) pin\(count == 1 ? "" : "s") matches a certificate of the validated chain")
        } catch let error as ServerTrustError {
            next.isTrusted = false
            next.refusal = Refusal(error, rule: "--pin")
        } catch {
            next.isTrusted = false
            next.refusal = Refusal(code: "internalError", rule: "--pin", message: "\(error)")
        }
        return next
    }
}

extension RuleOutcome.Refusal {
    /// An evaluator's refusal as the verdict line names it: its code and message, under `rule`.
    init(_ error: ServerTrustError, rule: String) {
        self.init(code: "\(error.code)", rule: rule, message: error.message)
    }
}

extension RuleOutcome {
    /// The outcome of validation alone, no rule beyond it.
    init(evaluation: TrustEvaluation) {
        self.init(evaluation: evaluation, isTrusted: evaluation.isTrusted)
    }
}
