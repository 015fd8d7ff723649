import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Evaluates every conformance case on every backend, on the very same minted certificates, and
/// fails on any difference in verdict or primary portable code that `docs/backends.md` does not list.
@Suite("Differential: one verdict across backends")
struct DifferentialTests {
    static func outcome(_ evaluation: TrustEvaluation) -> TestScenario.Expectation {
        evaluation.isTrusted ? .trusted : .rejected(evaluation.failures.first?.code ?? .internalError)
    }

    @Test("backends agree on every case, or the difference is documented", arguments: ConformanceCase.all)
    func agreement(testCase: ConformanceCase) throws {
        let trust = try testCase.build()
        var outcomes: [String: TestScenario.Expectation] = [:]
        for backend in TestBackends.all {
            outcomes[backend.name] = Self.outcome(trust.evaluate(using: backend))
        }
        let documented = KnownDifferences.rows[testCase.name]
        if Set(outcomes.values).count > 1 {
            #expect(documented != nil, "undocumented difference on \(testCase.name): \(outcomes)")
        }
        if let documented {
            for (backend, outcome) in outcomes {
                let listed = documented.verdicts[backend]
                #expect(listed == outcome,
                        "docs/backends.md says \(backend) gives \(listed.map { "\($0)" } ?? "nothing") on \(testCase.name), it gives \(outcome)")
            }
            #expect(!documented.reason.isEmpty, "a documented difference needs its reason")
        }
    }

    @Test func everyDocumentedRowNamesARealCase() {
        let names = Set(ConformanceCase.all.map(\.name))
        for name in KnownDifferences.rows.keys {
            #expect(names.contains(name), "docs/backends.md lists unknown case \(name)")
        }
    }
}
