import ArgumentParser
import Foundation
@_spi(Comparison) import TLSTrust
import TLSTrustToolSupport

/// `tlstrust compare`: one chain on every backend, the engine's verdict and the library's own
/// verifier's side by side.
///
/// The engine's verdict is the decision TLSTrust makes and should be the same on every backend;
/// the native column shows what each library would have said on its own.
///
/// Exit status: 0 when the engine trusts the chain on every backend, 1 otherwise (whatever the
/// native verifiers say), 2 for bad input.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Evaluate one chain on every backend: the engine's verdict and each library's own, side by side."
    )

    @OptionGroup var options: EvaluationOptions

    @Flag(help: "Print a JSON array with one record per backend: the engine's evaluation, with the native one under \"native\".")
    var json = false

    struct Row {
        let backend: any TrustBackend
        let engine: Timed
        let native: Timed
    }

    struct Timed {
        let request: TrustEvaluationRequest
        let evaluation: TrustEvaluation
        let micros: Int
    }

    func run() throws {
        let trust = try options.makeTrust()
        var rows: [Row] = []
        for backend in TrustBackends.all {
            rows.append(Row(backend: backend,
                            engine: try Self.evaluate(trust, engine: .core, on: backend),
                            native: try Self.evaluate(trust, engine: .native, on: backend)))
        }
        if json {
            print(EvaluationJSON.encode(rows.map { row in
                var record = EvaluationJSON.record(row.engine.evaluation, backend: row.backend, request: row.engine.request, engine: .core,
                                                   micros: row.engine.micros)
                record.input = options.jsonInput(verificationDate: trust.verificationDate)
                record.native = .init(EvaluationJSON.record(row.native.evaluation, backend: row.backend,
                                                            request: row.native.request, engine: .native, micros: row.native.micros))
                return record
            }))
        } else {
            print(Self.render(rows, profile: options.profile))
        }
        if !rows.allSatisfy(\.engine.evaluation.isTrusted) { throw ExitCode(1) }
    }

    /// Evaluates `trust` with `engine` on `backend`, timing the evaluation alone.
    static func evaluate(_ trust: Trust, engine: TrustEngine, on backend: any TrustBackend) throws -> Timed {
        let request = try trust.makeRequest(for: backend)  // prepares anchors outside the timing
        let clock = ContinuousClock()
        var evaluation: TrustEvaluation?
        let elapsed = clock.measure { evaluation = trust.evaluation(by: engine, using: backend) }
        let micros = Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)
        return Timed(request: request, evaluation: evaluation!, micros: micros)
    }

    /// The table, then a note for every disagreement.
    static func render(_ rows: [Row], profile: ValidationProfile) -> String {
        var table = TextTable(headers: ["backend", "engine (\(profile))", "native", "native reason", "time engine / native"])
        for row in rows {
            let nativeFailure = row.native.evaluation.primaryFailure
            table.add([
                row.backend.name,
                verdict(row.engine.evaluation),
                verdict(row.native.evaluation),
                nativeFailure.map { "\($0.detail)\($0.certificateIndex.map { " (depth \($0))" } ?? "")" } ?? "-",
                "\(milliseconds(row.engine.micros)) / \(milliseconds(row.native.micros))",
            ].map(\.terminalSafe))
        }
        var lines = [table.render(), ""]
        let engineVerdicts = Set(rows.map { verdict($0.engine.evaluation) })
        if let first = rows.first?.engine.evaluation, engineVerdicts.count == 1 {
            lines.append((first.isTrusted ? "engine: trusted (\(first.result.rawValue)) on every backend, chain of \(first.chain.count)"
                                          : "engine: \(first)").terminalSafe)
        } else {
            lines.append("engine verdicts differ between backends (the engine should decide alike everywhere):")
            for row in rows { lines.append("  \(row.backend.name): \(row.engine.evaluation)".terminalSafe) }
        }
        let unsupported = rows.filter { $0.native.evaluation.unsupportedFailure != nil }.map(\.backend.name)
        let differing = rows.filter {
            $0.native.evaluation.unsupportedFailure == nil && verdict($0.native.evaluation) != verdict($0.engine.evaluation)
        }.map(\.backend.name)
        if !differing.isEmpty {
            lines.append("native verifier differs from the engine on: \(differing.joined(separator: ", "))")
        }
        if !unsupported.isEmpty {
            lines.append("native verifier cannot honour this request on: \(unsupported.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }

    /// `trusted`, `NOT trusted: code`, or `unsupported` (the backend could not honour the request).
    static func verdict(_ evaluation: TrustEvaluation) -> String {
        if evaluation.isTrusted { return "trusted" }
        if evaluation.unsupportedFailure != nil { return "unsupported" }
        return "NOT trusted: \(evaluation.primaryFailure?.code.identifier ?? "?")"
    }

    static func milliseconds(_ micros: Int) -> String {
        String(format: "%.3f ms", Double(micros) / 1000)
    }
}
