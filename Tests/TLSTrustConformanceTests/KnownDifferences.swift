import Foundation
import TLSTrust
import TLSTrustTesting

/// Where backends, or a library's own verifier, legitimately reach another verdict: the two
/// machine-read tables of `docs/backends.md`, read here and nowhere else in the tests.
///
/// The documentation is the single source of truth: the conformance suite expects, per backend, what
/// the "Verdict differences" table says; the differential suite fails on any disagreement between
/// backends, or between the engine and a native verifier, that the tables do not list, and on any
/// row that no longer matches what the backends do.
enum KnownDifferences {
    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/backends.md")

    /// The body rows of the table whose header row's first cell is `firstHeader`: every row's cells
    /// (trimmed), for the rows whose first cell is a name in backticks (the backticks removed).
    /// The one parser of `docs/backends.md`; an absent document or table has no rows.
    static func table(startingWith firstHeader: String) -> (header: [String], rows: [[String]]) {
        let text = (try? String(contentsOf: documentURL, encoding: .utf8)) ?? ""
        var header: [String]?
        var rows: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                if header != nil { break }  // the table ends at its first line that is not a row
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard let known = header else {
                if cells.first == firstHeader { header = cells }
                continue
            }
            guard cells.count == known.count, let first = cells.first, first.hasPrefix("`") else { continue }
            rows.append([first.trimmingCharacters(in: CharacterSet(charactersIn: "`"))] + cells.dropFirst())
        }
        return (header ?? [], rows)
    }

    /// One row of "Verdict differences": each backend's verdict on the case, and why.
    struct Row: Sendable {
        let verdicts: [String: TestScenario.Expectation]
        let reason: String
    }

    /// "Verdict differences" (`| case | <backend>… | why |`), by case name: a cell is `trusted` or
    /// the portable code of the first failure.
    static let rows: [String: Row] = {
        let (header, body) = table(startingWith: "case")
        var rows: [String: Row] = [:]
        for cells in body {
            var verdicts: [String: TestScenario.Expectation] = [:]
            for (backend, cell) in zip(header, cells).dropFirst().dropLast() { verdicts[backend] = VerdictTable.parse(cell) }
            rows[cells[0]] = Row(verdicts: verdicts, reason: cells.last ?? "")
        }
        return rows
    }()

    /// "Native deviations from the engine" (`| native deviation | backend | why |`): case name →
    /// backend → why that library's own verifier reaches another verdict than the engine.
    static let nativeDeviations: [String: [String: String]] = {
        var deviations: [String: [String: String]] = [:]
        for cells in table(startingWith: "native deviation").rows where cells.count == 3 {
            deviations[cells[0], default: [:]][cells[1]] = cells[2]
        }
        return deviations
    }()

    /// What `backend` must answer for `testCase`: the documented verdict, else the catalogue's.
    static func expectation(for testCase: ConformanceCase, backend: String) -> TestScenario.Expectation {
        rows[testCase.name]?.verdicts[backend] ?? testCase.expectation
    }

    /// Key algorithms a backend's library cannot handle at all (documented in docs/backends.md).
    static let unsupportedKeyAlgorithms: [String: Set<TestKeyAlgorithm>] = ["mbedtls": [.ed25519]]
}
