import Foundation
import TLSTrust
import TLSTrustTesting

/// Where backends legitimately give different verdicts, read from the table in `docs/backends.md`.
///
/// The documentation is the single source of truth: the conformance suite expects, per backend, what
/// the table says; the differential test fails on any disagreement between backends that the table
/// does not list, and on any row that no longer matches what the backends do.
///
/// Table format (one row per case; a cell is `trusted` or a portable failure code):
///
///     | case | openssl | gnutls | mbedtls | why |
///     |---|---|---|---|---|
///     | `validEd25519` | trusted | trusted | weakAlgorithm | mbedTLS 2.28 has no Ed25519 |
enum KnownDifferences {
    struct Row {
        let caseName: String
        let verdicts: [String: TestScenario.Expectation]
        let reason: String
    }

    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/backends.md")

    /// The rows of the "Verdict differences" table, keyed by case name.
    static let rows: [String: Row] = {
        guard let text = try? String(contentsOf: documentURL, encoding: .utf8) else { return [:] }
        var header: [String] = []
        var rows: [String: Row] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.first == "case" {
                header = cells
                continue
            }
            guard !header.isEmpty, let first = cells.first, first.hasPrefix("`"), cells.count == header.count else { continue }
            let name = first.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            var verdicts: [String: TestScenario.Expectation] = [:]
            for (column, cell) in zip(header, cells).dropFirst() where column != "why" {
                verdicts[column] = parse(cell)
            }
            rows[name] = Row(caseName: name, verdicts: verdicts, reason: cells.last ?? "")
        }
        return rows
    }()

    static func parse(_ cell: String) -> TestScenario.Expectation? {
        if cell == "trusted" { return .trusted }
        return TrustFailureCode.allCases.first { $0.identifier == cell }.map { .rejected($0) }
    }

    /// What `backend` must answer for `testCase`: the documented verdict, else the catalogue's.
    static func expectation(for testCase: ConformanceCase, backend: String) -> TestScenario.Expectation {
        rows[testCase.name]?.verdicts[backend] ?? testCase.expectation
    }

    /// Key algorithms a backend's library cannot handle at all (documented in docs/backends.md).
    static let unsupportedKeyAlgorithms: [String: Set<TestKeyAlgorithm>] = [:]
}
