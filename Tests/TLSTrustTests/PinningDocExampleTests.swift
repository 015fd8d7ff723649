import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// The code samples of docs/pinning.md, verbatim, so that the documentation cannot rot: each
/// ```swift block of the document must appear in this file (indentation aside), and the JSON
/// example must parse.
@Suite("docs/pinning.md examples")
struct PinningDocExampleTests {
    static let docURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/pinning.md")

    /// The fenced blocks of `language` in the document.
    static func blocks(_ language: String) throws -> [String] {
        let text = try String(contentsOf: docURL, encoding: .utf8)
        var blocks: [String] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    static func normalized(_ text: String) -> String {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    @Test func everySwiftSampleIsInThisFile() throws {
        let source = Self.normalized(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        let samples = try Self.blocks("swift")
        #expect(samples.count == 3)
        for sample in samples {
            #expect(source.contains(Self.normalized(sample)), "not compiled by this test:\n\(sample)")
        }
    }

    @Test func theJSONExampleParses() throws {
        let json = try #require(try Self.blocks("json").first)
        let configuration = try PinningConfiguration(json: Array(json.utf8))
        #expect(configuration.pinSets["api.example.com"]?.pins.count == 2)
        #expect(configuration.pinSet(for: "beta.api.example.com") == nil)
        #expect(configuration.pinSets["api.example.com"]?.reportURIs.first?.absoluteString == "https://reports.example.net/pins")
    }

    @Test func pinSetExample() throws {
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let leafPin = h.leaf.certificate.publicKey.pin
        let backupPin = try PinningFixtures.sparePin().text
        let trust = PinningFixtures.trust(h)

        let pins = try PinSet(domain: "api.example.com", pins: [
            try SPKIPin(leafPin),
            try SPKIPin(backupPin, position: .intermediate),
        ], includesSubdomains: true)
        let evaluator = PinSetTrustEvaluator(pins)
        let decision = try evaluator.evaluate(trust, forHost: "api.example.com", using: OpenSSLTrustBackend())
        print(decision.pinMatch?.chainIndex ?? -1)

        #expect(decision.pinMatch?.chainIndex == 0)
    }

    @Test func configurationExample() throws {
        let json = try #require(try Self.blocks("json").first)
        try PinningFixtures.withFile("pins.json", Array(json.utf8)) { url in
            let path = url.path

            let configuration = try PinningConfiguration(contentsOfJSONFile: path)
            let reporter = DeduplicatingPinFailureReporter(HTTPPinFailureReporter())
            let manager = PinSetTrustEvaluator(configuration, reporter: reporter)

            #expect(manager.configuration.pinSets.count == 2)
        }
    }

    @Test func lintExample() throws {
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let currentChain = [h.leaf, h.intermediate, h.root].certificates
        let configuration = try PinningConfiguration([
            try PinSet(domain: "api.example.com", pins: [PinningFixtures.pin(h.leaf), PinningFixtures.pin(h.root)]),
        ])

        let warnings = configuration.lint(chains: ["api.example.com": currentChain])
        for warning in warnings { print(warning) }

        #expect(warnings.map(\.code) == [.noBackupPin])
    }
}
