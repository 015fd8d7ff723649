import ArgumentParser
import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
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

    @Flag(help: "Print one JSON object: the input, and under \"backends\" one record per backend (the engine's evaluation, the native one under \"native\").")
    var json = false

    @Option(help: "Time each evaluation this many times (1 to 100) and show the median and the range: one evaluation's time swings from run to run.")
    var `repeat`: Int = 1

    func validate() throws {
        guard (1...100).contains(`repeat`) else { throw ValidationError("--repeat \(`repeat`): between 1 and 100 evaluations") }
    }

    /// `compare --json`: one object per run, like every command's.
    struct Document: Encodable {
        var schemaVersion = ToolJSON.schemaVersion
        let input: EvaluationJSON.Input
        /// `--repeat`: how many evaluations each `timeMicroseconds` is the median of.
        let timingRuns: Int
        let backends: [EvaluationJSON.Record]
    }

    struct Row {
        let backend: any TrustBackend
        let engine: Timed
        let native: Timed
    }

    struct Timed {
        let request: TrustEvaluationRequest
        let evaluation: TrustEvaluation
        /// The median of the timed evaluations.
        let micros: Int
        /// Every timed evaluation, in order (the first cold, the later ones reusing the caches).
        var runs: [Int] = []
    }

    func run() throws {
        let trust = try options.makeTrust()
        var rows: [Row] = []
        for backend in TrustBackends.all {
            rows.append(Row(backend: backend,
                            engine: try Self.evaluate(trust, engine: .core, on: backend, times: `repeat`),
                            native: try Self.evaluate(trust, engine: .native, on: backend, times: `repeat`)))
        }
        if json {
            let input = options.jsonInput(verificationDate: trust.verificationDate)
            ToolJSON.print(Document(input: input, timingRuns: `repeat`, backends: rows.map { row in
                var record = EvaluationJSON.record(row.engine.evaluation, backend: row.backend, request: row.engine.request, engine: .core,
                                                   micros: row.engine.micros)
                record.input = input
                record.native = .init(EvaluationJSON.record(row.native.evaluation, backend: row.backend,
                                                            request: row.native.request, engine: .native, micros: row.native.micros))
                return record
            }))
        } else {
            print(Self.render(rows, profile: options.profile))
            print(Self.timingNote(repeats: `repeat`))
        }
        if !rows.allSatisfy(\.engine.evaluation.isTrusted) { throw ExitCode(1) }
    }

    /// Evaluates `trust` with `engine` on `backend` `times` times, timing the evaluations alone.
    static func evaluate(_ trust: Trust, engine: TrustEngine, on backend: any TrustBackend, times: Int = 1) throws -> Timed {
        let request = try trust.makeRequest(for: backend)  // prepares anchors outside the timing
        let clock = ContinuousClock()
        var evaluation: TrustEvaluation?
        var runs: [Int] = []
        for _ in 0..<max(1, times) {
            let elapsed = clock.measure { evaluation = trust.evaluation(by: engine, using: backend) }
            runs.append(Int(ToolJSON.microseconds(elapsed)))
        }
        return Timed(request: request, evaluation: evaluation!, micros: runs.sorted()[runs.count / 2], runs: runs)
    }

    /// The warning under the table: what the times are, and how far one can trust them.
    static func timingNote(repeats: Int) -> String {
        repeats == 1
            ? "timings: one evaluation each (the first of its kind in this process): such a time swings 2× or more from run to run; "
                + "--repeat N shows the median and range of N, 'tlstrust-dev bench' measures throughput"
            : "timings: median of \(repeats) evaluations each, [fastest–slowest] (the first cold, the later ones reusing the caches); "
                + "a single time swings 2× or more from run to run, 'tlstrust-dev bench' measures throughput"
    }

    /// `0.123 ms`, or with several runs `0.123 ms [0.100–0.250]`.
    static func timing(_ timed: Timed) -> String {
        guard timed.runs.count > 1, let low = timed.runs.min(), let high = timed.runs.max() else { return milliseconds(timed.micros) }
        return milliseconds(timed.micros) + String(format: " [%.3f–%.3f]", Double(low) / 1000, Double(high) / 1000)
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
                "\(timing(row.engine)) / \(timing(row.native))",
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
