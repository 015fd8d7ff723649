import Foundation

/// A plain-text table with padded columns.
package struct TextTable {
    package let headers: [String]
    package var rows: [[String]] = []

    package init(headers: [String]) { self.headers = headers }

    package mutating func add(_ row: [String]) { rows.append(row) }

    package func render() -> String {
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
