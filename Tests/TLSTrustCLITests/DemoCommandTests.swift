import Foundation
import Testing

/// `tlstrust demo`: an interception CA fools system trust but not a CA whitelist, on every backend.
@Suite("tlstrust demo")
struct DemoCommandTests {
    @Test("the forged certificate is trusted by system trust and refused by the app-CA whitelist on every backend")
    func demo() throws {
        let backends = try ToolRunner.backendNames()
        let result = try ToolRunner.run(["demo"], timeout: 300)
        result.expectExit(0)
        #expect(result.stderr.isEmpty, "\(result)")

        let lines = result.stdout.split(separator: "\n").map(String.init)
        let rule = try #require(lines.firstIndex { $0.hasPrefix("---") }, "no table\n\(result)")
        let header = lines[rule - 1]
        // Columns: backend, certificate presented, (a) system trust, (b) app CA only.
        let systemColumn = try #require(header.range(of: "(a) system trust")?.lowerBound.utf16Offset(in: header))
        let whitelistColumn = try #require(header.range(of: "(b) app CA only")?.lowerBound.utf16Offset(in: header))
        func cell(_ line: String, from: Int, to: Int) -> String {
            let utf16 = Array(line.utf16)
            guard from < utf16.count else { return "" }
            return String(decoding: utf16[from..<min(to, utf16.count)], as: UTF16.self).trimmingCharacters(in: .whitespaces)
        }

        for backend in backends {
            let rows = lines[(rule + 1)...].filter { $0.hasPrefix(backend + " ") }
            let forged = try #require(rows.first { $0.contains("forged") }, "no forged row for \(backend)\n\(result)")
            let genuine = try #require(rows.first { $0.contains("genuine") }, "no genuine row for \(backend)\n\(result)")

            let forgedSystem = cell(forged, from: systemColumn, to: whitelistColumn)
            let forgedWhitelist = cell(forged, from: whitelistColumn, to: .max)
            #expect(forgedSystem.hasPrefix("TRUSTED"), "\(backend): system trust should be fooled\n\(result)")
            #expect(forgedWhitelist.hasPrefix("refused"), "\(backend): the whitelist should refuse\n\(result)")

            #expect(cell(genuine, from: systemColumn, to: whitelistColumn) == "trusted", "\(backend)\n\(result)")
            #expect(cell(genuine, from: whitelistColumn, to: .max) == "trusted", "\(backend)\n\(result)")
        }
        #expect(!result.stdout.contains("UNEXPECTED"), "\(result)")
    }
}
