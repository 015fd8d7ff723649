import Foundation
import TLSTrust

/// A machine-readable Markdown table of per-backend verdicts, such as the "Verdict differences"
/// table of TLSTrust's `docs/backends.md`.
///
/// Keeping expected differences in documentation, and having tests read them from there, means
/// the documentation cannot drift from what the backends do. The format is one header row that
/// starts with `case` and ends with `why`, the backend names in between, then one row per case
/// whose first cell is the case name in backticks; each backend cell is `trusted` or a portable
/// failure code:
///
///     | case | openssl | gnutls | mbedtls | why |
///     |---|---|---|---|---|
///     | `validEd25519` | trusted | trusted | weakAlgorithm | mbedTLS 2.28 has no Ed25519 |
public struct VerdictTable: Sendable {
    public struct Row: Sendable {
        public let caseName: String
        public let verdicts: [String: TestScenario.Expectation]
        public let reason: String
    }

    /// The rows by case name.
    public let rows: [String: Row]

    public init(markdown: String) {
        var header: [String] = []
        var rows: [String: Row] = [:]
        for line in markdown.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.first == "case" && cells.last == "why" {
                header = cells
                continue
            }
            guard !header.isEmpty, let first = cells.first, first.hasPrefix("`"), cells.count == header.count else { continue }
            let name = first.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            var verdicts: [String: TestScenario.Expectation] = [:]
            for (column, cell) in zip(header, cells).dropFirst().dropLast() {
                verdicts[column] = Self.parse(cell)
            }
            rows[name] = Row(caseName: name, verdicts: verdicts, reason: cells.last ?? "")
        }
        self.rows = rows
    }

    /// Reads the table from a file; a missing file is an empty table.
    public init(contentsOf url: URL) {
        self.init(markdown: (try? String(contentsOf: url, encoding: .utf8)) ?? "")
    }

    /// `trusted`, or a portable failure code's identifier.
    public static func parse(_ cell: String) -> TestScenario.Expectation? {
        if cell == "trusted" { return .trusted }
        return TrustFailureCode.allCases.first { $0.identifier == cell }.map { .rejected($0) }
    }

    /// The verdict the table documents for `caseName` on `backend`, if any.
    public func verdict(for caseName: String, backend: String) -> TestScenario.Expectation? {
        rows[caseName]?.verdicts[backend]
    }
}
