import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// `docs/backends.md` states the known differences for readers, in two tables. The lists that the
/// tests allow are ``KnownDifferences``' Swift values; these tests hold the document to them, row
/// for row and reason for reason, so that the document follows the code and a row added to the
/// document alone fails here instead of silencing a difference.
@Suite("docs/backends.md states the known differences the tests allow")
struct KnownDifferencesDocumentTests {
    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/backends.md")

    /// The table whose header row's first cell is `firstHeader`: its header cells and its body rows'
    /// cells (trimmed), for the rows whose first cell is a name in backticks (the backticks removed).
    static func table(startingWith firstHeader: String) throws -> (header: [String], rows: [[String]]) {
        let text = try String(contentsOf: documentURL, encoding: .utf8)
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
            guard let first = cells.first, first.hasPrefix("`") else { continue }
            #expect(cells.count == known.count, "docs/backends.md, table \"\(firstHeader)\": a row with \(cells.count) cells: \(line)")
            rows.append([first.trimmingCharacters(in: CharacterSet(charactersIn: "`"))] + cells.dropFirst())
        }
        return (try #require(header, "docs/backends.md has no table starting with \"\(firstHeader)\""), rows)
    }

    /// A verdict as the document writes it: `trusted`, or the portable code of the first failure.
    static func cell(_ expectation: TestScenario.Expectation?) -> String {
        switch expectation {
        case .trusted: "trusted"
        case .rejected(let code): code.identifier
        case nil: "(none)"
        }
    }

    @Test func theVerdictDifferenceTableStatesKnownDifferencesVerdictDifferences() throws {
        let (header, rows) = try Self.table(startingWith: "case")
        let backends = TestBackends.names
        #expect(header == ["case"] + backends + ["why"], "docs/backends.md's verdict-difference header: \(header)")
        let expected = Set(KnownDifferences.verdictDifferences.map { name, difference in
            [name] + backends.map { Self.cell(difference.verdicts[$0]) } + [difference.reason]
        })
        let documented = Set(rows)
        for row in documented.subtracting(expected) {
            Issue.record("docs/backends.md lists a verdict difference that KnownDifferences.verdictDifferences does not hold: \(row)")
        }
        for row in expected.subtracting(documented) {
            Issue.record("docs/backends.md does not state the verdict difference \(row)")
        }
        #expect(rows.count == documented.count, "a verdict difference is stated twice")
    }

    @Test func theNativeDeviationTableStatesKnownDifferencesNativeDeviations() throws {
        let (header, rows) = try Self.table(startingWith: "native deviation")
        #expect(header == ["native deviation", "backend", "why"], "docs/backends.md's native-deviation header: \(header)")
        let expected = KnownDifferences.nativeDeviationList.map { [$0.caseName, $0.backend, $0.reason] }
        let documented = Set(rows)
        for row in documented.subtracting(expected) {
            Issue.record("docs/backends.md lists a native deviation that KnownDifferences.nativeDeviationList does not hold: \(row)")
        }
        for row in Set(expected).subtracting(documented) {
            Issue.record("docs/backends.md does not state the native deviation \(row)")
        }
        #expect(rows == expected, "docs/backends.md states the native deviations in KnownDifferences' order, once each")
    }
}
