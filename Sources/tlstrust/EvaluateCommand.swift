import ArgumentParser
import Foundation
import TLSTrust

/// `tlstrust evaluate`: one chain, one backend, a verdict in the exit status.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluate a certificate chain on one backend (exit 0 trusted, 1 not trusted, 2 bad input or unsupported)."
    )

    @Option(help: "A registered backend: see 'tlstrust backends'.")
    var backend: String

    @OptionGroup var options: EvaluationOptions

    @Option(help: "Which verifier decides: core (TLSTrust's validation engine, the default) or native (the library's own verifier, for comparison).")
    var engine: TrustEngine = .core

    @Flag(help: "Print one JSON object describing the evaluation.")
    var json = false

    func run() throws {
        let backend = try TrustBackends.named(backend)
        var trust = try options.makeTrust()
        trust.engine = engine
        // Resolve the request here so that unusable input is exit 2, not a verdict.
        let request = try trust.makeRequest(for: backend)
        let evaluation = backend.evaluate(request)
        // A backend that cannot honour the request has given no verdict: that is exit 2, not 1.
        if let unsupported = evaluation.unsupportedFailure {
            throw TLSTrustError(.unsupported, "\(backend.name): unsupported: \(unsupported.nativeDescription)")
        }
        if json {
            print(EvaluationJSON.render(evaluation, backend: backend, request: request))
        } else if evaluation.isTrusted {
            let anchor = evaluation.chain.last.map { " via \($0.subject)" } ?? ""
            print("trusted: \(evaluation.chain.first?.subject.description ?? "")\(anchor) [\(backend.name)]".terminalSafe)
        } else {
            print("\(evaluation) [\(backend.name)]".terminalSafe)
        }
        if !evaluation.isTrusted { throw ExitCode(1) }
    }
}

extension TrustEvaluation {
    /// The primary failure when it is `.unsupported`: the backend could not honour the request,
    /// so the evaluation is no verdict on the chain.
    var unsupportedFailure: TrustFailure? {
        guard let first = primaryFailure, first.code == .unsupported else { return nil }
        return first
    }
}
