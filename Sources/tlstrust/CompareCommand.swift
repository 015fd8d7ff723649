import ArgumentParser
import Foundation
import TLSTrust

/// `tlstrust compare`: one chain on every backend, side by side.
///
/// Exit status: 0 when every backend trusts the chain, 1 otherwise (a backend refuses it, or the
/// backends disagree — which the table then shows), 2 for bad input.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Evaluate one chain on every backend and print the verdicts side by side."
    )

    @OptionGroup var options: EvaluationOptions

    @Flag(help: "Print a JSON array with one evaluation record per backend.")
    var json = false

    func run() throws {
        let trust = try options.makeTrust()
        var rows: [(backend: any TrustBackend, evaluation: TrustEvaluation, micros: Int)] = []
        for backend in TrustBackends.all {
            let request = try trust.makeRequest(for: backend)  // prepares anchors outside the timing
            let clock = ContinuousClock()
            var evaluation: TrustEvaluation?
            let elapsed = clock.measure { evaluation = backend.evaluate(request) }
            let micros = Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)
            rows.append((backend, evaluation!, micros))
        }
        if json {
            print(EvaluationJSON.encode(rows.map { EvaluationJSON.record($0.evaluation, backend: $0.backend, micros: $0.micros) }))
        } else {
            var table = TextTable(headers: ["backend", "verdict", "code", "native reason", "time"])
            for row in rows {
                let failure = row.evaluation.failures.first
                table.add([
                    row.backend.name,
                    row.evaluation.isTrusted ? "trusted" : "NOT trusted",
                    failure?.code.identifier ?? "-",
                    failure.map { "\($0.nativeDescription)\($0.certificateIndex.map { " (depth \($0))" } ?? "")" } ?? "-",
                    String(format: "%.3f ms", Double(row.micros) / 1000),
                ])
            }
            print(table.render())
            let verdicts = Set(rows.map(\.evaluation.isTrusted))
            let codes = Set(rows.map { $0.evaluation.failures.first?.code.identifier ?? "" })
            if verdicts.count > 1 || codes.count > 1 { print("backends disagree") }
        }
        if !rows.allSatisfy(\.evaluation.isTrusted) { throw ExitCode(1) }
    }
}

/// A plain-text table with padded columns.
struct TextTable {
    let headers: [String]
    var rows: [[String]] = []

    init(headers: [String]) { self.headers = headers }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in i == cells.count - 1 ? c : c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }
}
