import ArgumentParser
import Foundation
import TLSTrust

/// `tlstrust evaluate`: one chain, one backend, a verdict in the exit status.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluate a certificate chain on one backend (exit 0 trusted, 1 not trusted, 2 bad input or unsupported)."
    )

    // The contract's own options come first in --help (one "Evaluation" section), then pinning.
    @OptionGroup(title: "Evaluation") var verifier: VerifierOptions

    @OptionGroup(title: "Evaluation") var options: EvaluationOptions

    @OptionGroup(title: "Pinning") var pinning: PinningOptions

    var backend: String { verifier.backend }
    var engine: TrustEngine { verifier.engine }

    @Flag(help: "Print one JSON object describing the evaluation.")
    var json = false

    func run() throws {
        let backend = try TrustBackends.named(backend)
        let pins = try pinning.parsedPins()
        let configuration = try pinning.configuration()
        if configuration != nil && options.hostname == nil {
            throw TLSTrustError(.invalidArgument, "--config needs --hostname: pin sets apply per host")
        }
        let policy = try pinning.securityPolicy()
        var trust = try options.makeTrust()
        trust.engine = engine
        // A configuration that names trust anchors for the host means exactly those: validation
        // uses them (so the system store cannot vouch for a proxy), and --anchors beside them
        // would be a second, contradictory answer.
        if let configuration, let host = options.hostname, let anchors = configuration.trustAnchors(for: host) {
            if options.anchors != nil {
                throw TLSTrustError(.invalidArgument, "--anchors and --config both name trust anchors for \(host): give one")
            }
            trust.anchors = anchors.trustAnchors
        }
        // Resolve the request here so that unusable input is exit 2, not a verdict.
        let request = try trust.makeRequest(for: backend)

        var outcome = RuleOutcome.evaluate(trust: trust, request: request, backend: backend, policy: policy, host: options.hostname)
        // A backend that cannot honour the request has given no verdict: that is exit 2, not 1.
        if let unsupported = outcome.evaluation.unsupportedFailure {
            throw TLSTrustError(.unsupported, "\(backend.name): unsupported: \(unsupported.detail)")
        }
        if outcome.isTrusted, !pins.isEmpty { outcome = outcome.requiring(pins) }
        if outcome.isTrusted, let configuration, let host = options.hostname {
            outcome = outcome.requiring(configuration, trust: trust, host: host, backend: backend)
        }

        if json {
            print(EvaluationJSON.render(outcome.evaluation, backend: backend, request: request,
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
}

/// `--backend` and `--engine`: which verifier `evaluate` asks.
struct VerifierOptions: ParsableArguments {
    @Option(help: "A registered backend: see 'tlstrust backends'.")
    var backend: String

    @Option(help: "Which verifier decides: core (TLSTrust's validation engine, the default) or native (the library's own verifier, for comparison).")
    var engine: TrustEngine = .core
}

extension TrustEvaluation {
    /// The primary failure when it is `.unsupported`: the backend could not honour the request,
    /// so the evaluation is no verdict on the chain.
    var unsupportedFailure: TrustFailure? {
        guard let first = primaryFailure, first.code == .unsupported else { return nil }
        return first
    }
}

/// What `evaluate` decided and which rule decided it.
struct RuleOutcome {
    struct Refusal {
        /// The failure code, e.g. `pinSetFailed`.
        let code: String
        /// The rule, e.g. `--pin`, `PinSetTrustEvaluator`, `SecurityPolicy(publicKey)`.
        let rule: String
        let message: String
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
        if let refusal { return .init(rule: refusal.rule, code: refusal.code, message: refusal.message, pin: nil, pinIndex: nil) }
        guard let rule else { return nil }
        return .init(rule: rule, code: nil, message: nil, pin: pinMatch?.pin, pinIndex: pinMatch?.chainIndex)
    }

    static func evaluate(trust: Trust, request: TrustEvaluationRequest, backend: any TrustBackend,
                         policy: SecurityPolicy?, host: String?) -> RuleOutcome {
        guard let policy else {
            let evaluation = backend.evaluate(request)
            return RuleOutcome(evaluation: evaluation, isTrusted: evaluation.isTrusted)
        }
        let rule = "SecurityPolicy(\(policy.pinningMode))"
        guard let host else {
            // AFNetworking with a nil domain: a verdict without evidence.
            let trusted = policy.evaluateServerTrust(trust, forDomain: nil, using: backend)
            let evaluation = backend.evaluate(request)
            return RuleOutcome(evaluation: evaluation, isTrusted: trusted, rule: rule,
                               refusal: trusted ? nil : Refusal(code: "policyRefused", rule: rule, message: "evaluateServerTrust returned false"))
        }
        do {
            let decision = try policy.evaluate(trust, forHost: host, using: backend)
            let evaluation = decision.validatedChain?.evaluation ?? backend.evaluate(request)
            return RuleOutcome(evaluation: evaluation, isTrusted: true, rule: rule, pinMatch: decision.pinMatch)
        } catch let error as ServerTrustError {
            return RuleOutcome(evaluation: error.evaluation ?? backend.evaluate(request), isTrusted: false,
                               refusal: Refusal(code: "\(error.code)", rule: rule, message: error.message))
        } catch {
            return RuleOutcome(evaluation: backend.evaluate(request), isTrusted: false,
                               refusal: Refusal(code: "internalError", rule: rule, message: "\(error)"))
        }
    }

    /// Requires one of `pins` to match a certificate of the *validated* chain.
    func requiring(_ pins: [SPKIPin]) -> RuleOutcome {
        var next = self
        guard let chain = evaluation.validatedChain else {
            next.isTrusted = false
            next.refusal = Refusal(code: "pinSetFailed", rule: "--pin", message: "no chain was validated, so no pin can match")
            return next
        }
        for pin in pins {
            for (index, key) in chain.publicKeys.enumerated() where pin.matches(key) {
                next.rule = rule ?? "--pin"
                next.pinMatch = PinMatch(pin: pin.text, at: index, in: chain)
                return next
            }
        }
        next.isTrusted = false
        next.refusal = Refusal(code: "pinSetFailed", rule: "--pin",
                               message: "none of \(pins.count) pin\(pins.count == 1 ? "" : "s") matches a certificate of the validated chain")
        return next
    }

    /// Requires the pin set of `host` in `configuration`, through `PinSetTrustEvaluator`.
    func requiring(_ configuration: PinningConfiguration, trust: Trust, host: String, backend: any TrustBackend) -> RuleOutcome {
        var next = self
        let evaluator = PinSetTrustEvaluator(configuration)
        let rule = "PinSetTrustEvaluator" + (configuration.pinSet(for: host).map { "(\($0.domain))" } ?? "")
        do {
            let decision = try evaluator.evaluate(trust, forHost: host, using: backend)
            if let match = decision.pinMatch {
                next.pinMatch = match
                next.rule = rule
            } else if next.rule == nil {
                next.rule = "\(rule): \(decision.reason)"
            }
        } catch let error as ServerTrustError {
            next.isTrusted = false
            next.refusal = Refusal(code: "\(error.code)", rule: rule, message: error.message)
        } catch {
            next.isTrusted = false
            next.refusal = Refusal(code: "internalError", rule: rule, message: "\(error)")
        }
        return next
    }
}
