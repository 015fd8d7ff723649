import Foundation
import Testing

/// `tlstrust demo`, live on 127.0.0.1: the intercepting proxy fools system trust, a CA whitelist
/// and a pin set refuse it, mutual TLS with a .p12 works — with every backend's client.
@Suite("tlstrust demo")
struct DemoCommandTests {
    @Test("Every backend: fooled by system trust, refused by the whitelist and the pin set, mutual TLS succeeds")
    func demo() throws {
        // The demo connects: every backend with TLS (by role) has a row.
        let backends = try ToolRunner.backendNames(playing: "TLS")
        let result = try ToolRunner.run(["demo"], timeout: 300)
        result.expectExit(0)
        #expect(!result.stdout.contains("UNEXPECTED"), "\(result)")
        // A backend without TLS (swift-crypto with its trait) is named as not taking part, and
        // asking for it by name is refused as unsupported, not shown as failing.
        for name in Set(try ToolRunner.backendNames()).subtracting(backends) {
            let note = result.stdoutLines.first { $0.contains("not in the demo (no TLS") }
            #expect(note?.contains(name) == true, "\(name)\n\(result)")
            try ToolRunner.run(["demo", "--backend", name]).expectUsageError(mentioning: [name, "unsupported"])
        }

        let lines = result.stdout.split(separator: "\n").map(String.init)
        let rule = try #require(lines.firstIndex { $0.hasPrefix("---") }, "no table\n\(result)")
        let header = lines[rule - 1]
        let columns = ["via proxy: system trust", "via proxy: app CA only", "via proxy: pin set", "direct: mutual TLS (.p12)"]
        let starts = try columns.map { try #require(header.range(of: $0)?.lowerBound.utf16Offset(in: header), "\($0)\n\(result)") }
        func cell(_ line: String, _ index: Int) -> String {
            let utf16 = Array(line.utf16)
            let from = starts[index], to = index + 1 < starts.count ? starts[index + 1] : utf16.count
            guard from < utf16.count else { return "" }
            return String(decoding: utf16[from..<min(to, utf16.count)], as: UTF16.self).trimmingCharacters(in: .whitespaces)
        }
        for backend in backends {
            let row = try #require(lines[(rule + 1)...].first { $0.hasPrefix(backend + " ") }, "no row for \(backend)\n\(result)")
            #expect(cell(row, 0).hasPrefix("FOOLED"), "\(backend): system trust should be fooled\n\(result)")
            #expect(cell(row, 1).hasPrefix("refused"), "\(backend): the whitelist should refuse\n\(result)")
            #expect(cell(row, 2).hasPrefix("refused"), "\(backend): the pin set should refuse\n\(result)")
            #expect(cell(row, 3) == "200 as CN=demo-client", "\(backend): mutual TLS\n\(result)")
            // The proxy really read the fooled client's request, bearer token included.
            #expect(result.stdout.contains("\(backend): GET /account HTTP/1.1 | Authorization: Bearer demo-secret-\(backend)"), "\(result)")
        }
    }
}
