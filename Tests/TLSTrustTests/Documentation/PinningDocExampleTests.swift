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
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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
        #expect(samples.count == 4)
        for sample in samples {
            #expect(source.contains(Self.normalized(sample)), "not compiled by this test:\n\(sample)")
        }
    }

    @Test func trustKitCodeExample() throws {
        let intermediateHash = String(try PinningFixtures.sparePin().text.dropFirst(7))
        let backupHash = String(try PinningFixtures.sparePin().text.dropFirst(7))
        let configuration = try PinningConfiguration(trustKitConfiguration: [
            kTSKSwizzleNetworkDelegates: false,
            kTSKPinnedDomains: [
                "example.com": [
                    kTSKIncludeSubdomains: true,
                    kTSKPublicKeyHashes: [intermediateHash, backupHash],
                    kTSKReportUris: ["https://reports.example.net/log/"],
                ] as [String: Any],
                "open.example.com": [kTSKExcludeSubdomainFromParentPolicy: true],
            ] as [String: Any],
        ])
        #expect(configuration.pinSet(for: "www.example.com")?.pins.count == 2)
        #expect(configuration.pinSet(for: "open.example.com") == nil)
    }

    @Test("the Android example parses with its res/ folder, in a release and a debug build")
    func androidExample() throws {
        let xml = try #require(try Self.blocks("xml").first { $0.contains("<network-security-config") })
        try TemporaryDirectory.with { dir in
            let res = dir.appendingPathComponent("res")
            try FileManager.default.createDirectory(at: res.appendingPathComponent("xml"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: res.appendingPathComponent("raw"), withIntermediateDirectories: true)
            let myCA = try TestPKI.issue(.certificateAuthority(commonName: "My CA"))
            let debugCA = try TestPKI.issue(.certificateAuthority(commonName: "Debug CA"))
            try TestPKI.writePEM([myCA], to: res.appendingPathComponent("raw/my_ca.pem"))
            try TestPKI.writeDER(debugCA, to: res.appendingPathComponent("raw/debug_ca.crt"))
            let file = res.appendingPathComponent("xml/network_security_config.xml")
            try Data(xml.utf8).write(to: file)
            let release = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path)
            #expect(release.trustAnchors(for: "v1.api.example.com")?.certificates == [myCA.certificate])
            #expect(release.pinSet(for: "api.example.com")?.pins.count == 2)
            #expect(release.inactiveElements.count == 1)
            let debug = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path, debugBuild: true)
            #expect(debug.trustAnchors(for: "api.example.com")?.pinOverridingCertificates == [debugCA.certificate])
        }
    }

    @Test("the ATS example, inside an Info.plist, pins a leaf and a CA identity, both required")
    func atsExample() throws {
        let fragment = try #require(try Self.blocks("xml").first { $0.contains("NSPinnedDomains") })
        let plist = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>\(fragment)</dict></plist>"
        let configuration = try PinningConfiguration(trustKitInfoPlist: Array(plist.utf8))
        let set = try #require(configuration.pinSet(for: "v1.api.example.com"))
        #expect(set.pins.map(\.position) == [.leaf, .certificateAuthority] || set.pins.map(\.position) == [.certificateAuthority, .leaf])
        #expect(set.requiresMatchAtEveryPosition && set.includesSubdomains)
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
