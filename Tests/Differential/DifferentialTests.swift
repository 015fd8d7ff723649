import Foundation
import Testing

/// The differential tester: cases generated from `DifferentialGrammar`, evaluated by the engine on
/// every backend and by OpenSSL's and GnuTLS's verifiers in process (docs/validation.md,
/// "Differences from OpenSSL and GnuTLS found by the differential tester").
///
/// - The short pass runs in `swift test`: a fixed list of seeds, plus one seed derived from the
///   run's clock (printed, so a failure on it can be replayed).
/// - The long pass runs by hand: `Tests/Differential/run N` sets `TLSTRUST_DIFFERENTIAL_CASES`
///   (and optionally `TLSTRUST_DIFFERENTIAL_SEED`, the first seed).
/// - One case: `Tests/Differential/run --seed S` sets `TLSTRUST_DIFFERENTIAL_REPLAY`.
@Suite("Differential tester: the engine against OpenSSL and GnuTLS on generated chains")
struct DifferentialTesterTests {
    static let environment = ProcessInfo.processInfo.environment
    /// The fixed seeds of the short pass.
    static let fixedSeeds: [UInt64] = Array(1...250)

    static func check(_ pass: DifferentialPass) {
        for finding in pass.findings { Issue.record("\(finding)") }
        for error in pass.errors { Issue.record("\(error)") }
    }

    @Test func shortPass() {
        let derived = UInt64(Date().timeIntervalSince1970 * 1000) & 0xFFFF_FFFF
        print("differential short pass: fixed seeds 1…\(Self.fixedSeeds.count) and derived seed \(derived)")
        var pass = DifferentialPass()
        for seed in Self.fixedSeeds + [derived] { pass.run(seed: seed) }
        print(pass.summary)
        #expect(pass.cases == Self.fixedSeeds.count + 1)
        Self.check(pass)
    }

    @Test(.enabled(if: environment["TLSTRUST_DIFFERENTIAL_CASES"] != nil, "the long pass runs by hand: Tests/Differential/run N"))
    func longPass() throws {
        let count = try #require(Int(Self.environment["TLSTRUST_DIFFERENTIAL_CASES"] ?? ""), "TLSTRUST_DIFFERENTIAL_CASES must be a number")
        let first = Self.environment["TLSTRUST_DIFFERENTIAL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...(1 << 40))
        print("differential long pass: \(count) cases from seed \(first)")
        let start = ContinuousClock.now
        var pass = DifferentialPass()
        for offset in 0..<UInt64(count) { pass.run(seed: first &+ offset) }
        print(pass.summary)
        print("time: \(ContinuousClock.now - start)")
        for name in pass.unmatchedDifferences { print("documented difference no case matched: \(name)") }
        Self.check(pass)
    }

    @Test(.enabled(if: environment["TLSTRUST_DIFFERENTIAL_REPLAY"] != nil, "replays one seed: Tests/Differential/run --seed S"))
    func replay() throws {
        let seed = try #require(Self.environment["TLSTRUST_DIFFERENTIAL_REPLAY"].flatMap(UInt64.init))
        let generated = DifferentialGrammar.generate(seed: seed)
        let (outcome, split) = try DifferentialRunner.run(generated)
        print("\(generated)\n  engine: \(outcome.engineVerdict)\n  OpenSSL: \(outcome.verdict(of: .openSSL))"
              + " (all errors: \(outcome.openSSL.allErrors))\n  GnuTLS: \(outcome.verdict(of: .gnuTLS))")
        for reference in outcome.disagreeing {
            print("  \(reference.rawValue) disagrees: \(DocumentedDifference.explaining(generated, outcome, reference).map { "documented, \($0.name)" } ?? "UNDOCUMENTED")")
        }
        #expect(split == nil, "the engine's verdict depends on the backend: \(split ?? "")")
    }

    @Test func theGrammarIsReproducible() {
        for seed: UInt64 in [0, 1, 42, 1 << 40] {
            #expect(DifferentialGrammar.generate(seed: seed).description == DifferentialGrammar.generate(seed: seed).description)
        }
        #expect(DifferentialGrammar.generate(seed: 1).description != DifferentialGrammar.generate(seed: 2).description)
    }

    @Test func everyDocumentedDifferenceIsInTheDocs() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/validation.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let marker = "## Differences from OpenSSL and GnuTLS found by the differential tester"
        let section = try #require(text.range(of: marker).map { String(text[$0.upperBound...]) }, "docs/validation.md lacks the section")
        var names = Set<String>()
        for difference in DocumentedDifference.all {
            #expect(names.insert("\(difference.reference) \(difference.name)").inserted, "duplicate name \(difference.name)")
            #expect(section.contains(difference.name), "docs/validation.md does not describe \(difference.name)")
            #expect(section.contains(difference.rfcSection), "docs/validation.md does not cite \(difference.rfcSection) for \(difference.name)")
        }
    }
}
