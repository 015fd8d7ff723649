import ArgumentParser
import Foundation
import TLSTrust

/// `tlstrust evaluate`: one chain, one backend, a verdict in the exit status.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluate a certificate chain on one backend (exit 0 trusted, 1 not trusted, 2 bad input)."
    )

    @Option(help: "A registered backend: see 'tlstrust backends'.")
    var backend: String

    @OptionGroup var options: EvaluationOptions

    @Flag(help: "Print one JSON object describing the evaluation.")
    var json = false

    func run() throws {
        let backend = try TrustBackends.named(backend)
        let trust = try options.makeTrust()
        // Resolve the request here so that unusable input is exit 2, not a verdict.
        let request = try trust.makeRequest(for: backend)
        let evaluation = backend.evaluate(request)
        if json {
            print(EvaluationJSON.render(evaluation, backend: backend))
        } else if evaluation.isTrusted {
            let anchor = evaluation.chain.last.map { " via \($0.subject)" } ?? ""
            print("trusted: \(evaluation.chain.first?.subject.description ?? "")\(anchor) [\(backend.name)]")
        } else {
            print("\(evaluation) [\(backend.name)]")
        }
        if !evaluation.isTrusted { throw ExitCode(1) }
    }
}
