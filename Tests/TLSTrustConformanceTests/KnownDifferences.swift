import Foundation
import TLSTrust
import TLSTrustTesting

/// Where backends legitimately give different verdicts, read from the "Verdict differences" table
/// in `docs/backends.md` (format: `VerdictTable`).
///
/// The documentation is the single source of truth: the conformance suite expects, per backend, what
/// the table says; the differential test fails on any disagreement between backends that the table
/// does not list, and on any row that no longer matches what the backends do.
enum KnownDifferences {
    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/backends.md")

    static let table = VerdictTable(contentsOf: documentURL)
    static var rows: [String: VerdictTable.Row] { table.rows }

    /// What `backend` must answer for `testCase`: the documented verdict, else the catalogue's.
    static func expectation(for testCase: ConformanceCase, backend: String) -> TestScenario.Expectation {
        table.verdict(for: testCase.name, backend: backend) ?? testCase.expectation
    }

    /// Key algorithms a backend's library cannot handle at all (documented in docs/backends.md).
    static let unsupportedKeyAlgorithms: [String: Set<TestKeyAlgorithm>] = ["mbedtls": [.ed25519]]
}
