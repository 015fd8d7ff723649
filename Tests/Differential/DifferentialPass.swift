import Foundation
import TLSTrust

/// One pass of the differential tester over a list of seeds: every case generated, minted,
/// evaluated by the engine on every backend and by the references, and every disagreement either
/// explained by a ``DocumentedDifference`` or reported with its seed and case.
struct DifferentialPass {
    struct Finding: CustomStringConvertible {
        let generated: DifferentialCase
        let outcome: DifferentialOutcome
        let problem: String

        var description: String {
            """
            \(problem)
            \(generated)
              engine: \(outcome.engineVerdict)
              OpenSSL: \(outcome.verdict(of: .openSSL))
              GnuTLS: \(outcome.verdict(of: .gnuTLS))
            reproduce: Tests/Differential/run --seed \(generated.seed)
            """
        }
    }

    private(set) var cases = 0
    private(set) var comparedWithGnuTLS = 0
    private(set) var agreements = 0
    /// Documented difference name → how many cases it explained.
    private(set) var explained: [String: Int] = [:]
    /// Documented difference name → the first seeds it explained, to replay.
    private(set) var examples: [String: [UInt64]] = [:]
    /// Undocumented disagreements, engine verdicts that depend on the backend, and cases that
    /// could not be minted or evaluated: each fails the pass.
    private(set) var findings: [Finding] = []
    private(set) var errors: [String] = []

    mutating func run(seed: UInt64) {
        let generated = DifferentialGrammar.generate(seed: seed)
        let result: (outcome: DifferentialOutcome, backendSplit: String?)
        do {
            result = try DifferentialRunner.run(generated)
        } catch {
            errors.append("seed \(seed): could not mint or evaluate: \(error)\n\(generated)")
            return
        }
        cases += 1
        if result.outcome.gnuTLS != nil { comparedWithGnuTLS += 1 }
        if let split = result.backendSplit {
            findings.append(Finding(generated: generated, outcome: result.outcome,
                                    problem: "the engine's verdict depends on the backend: \(split)"))
        }
        let disagreeing = result.outcome.disagreeing
        if disagreeing.isEmpty { agreements += 1 }
        for reference in disagreeing {
            if let difference = DocumentedDifference.explaining(generated, result.outcome, reference) {
                explained[difference.name, default: 0] += 1
                if examples[difference.name, default: []].count < 3 { examples[difference.name, default: []].append(seed) }
            } else {
                findings.append(Finding(generated: generated, outcome: result.outcome,
                                        problem: "undocumented disagreement with \(reference.rawValue)"))
            }
        }
    }

    /// The documented differences no case of this pass matched.
    var unmatchedDifferences: [String] { DocumentedDifference.all.map(\.name).filter { explained[$0] == nil } }

    var summary: String {
        var lines = ["\(cases) cases (\(comparedWithGnuTLS) also compared with GnuTLS): \(agreements) with one verdict everywhere, "
                     + "\(explained.values.reduce(0, +)) disagreements explained, \(findings.count) findings, \(errors.count) errors"]
        for (name, count) in explained.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(count)× \(name) (e.g. seeds \(examples[name, default: []].map(String.init).joined(separator: ", ")))")
        }
        return lines.joined(separator: "\n")
    }
}
