import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// The README's "Evaluating a chain against your app's own CA" sample, compiled and run here. The
/// lines between the markers are the README's code block without its imports, verbatim; a test
/// compares the two, so neither can change without the other.
func readmeSample(appCAPEM: String, peerChainDER: [[UInt8]]) throws -> TrustEvaluation {
    // README-SAMPLE-BEGIN
    // Once, at start-up: the process-wide default backend (libraries pass one explicitly instead).
    TrustBackends.bootstrap(OpenSSLTrustBackend())

    // Keep this for the life of the app: each backend's prepared anchor store is cached in it.
    let appCA = try Certificate(pemEncoded: appCAPEM)
    let anchors = TrustAnchors.only([appCA])          // the app's CA, and nothing else

    // On every handshake: the chain the server presented, leaf first, as DER.
    let chain = try peerChainDER.map { try Certificate(derEncoded: $0) }
    let trust = Trust(certificates: chain, policies: [.ssl(hostname: "api.example.com")], anchors: anchors)
    // Throws TrustEvaluationError (carrying the evaluation) unless trusted, e.g.
    // "not trusted: unknownIssuer at depth 1: no issuer of 'CN=Proxy CA' among the anchors and intermediates"
    let evaluation = try trust.evaluateOrThrow()
    // README-SAMPLE-END
    return evaluation
}

@Suite("README example")
struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func theSampleTrustsTheAppsServerAndRefusesAProxy() throws {
        let app = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let proxy = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let evaluation = try readmeSample(appCAPEM: app.root.pem, peerChainDER: app.chain.map(\.der))
        #expect(evaluation.isTrusted && evaluation.result == .proceed)
        #expect(throws: TrustEvaluationError.self) {
            try readmeSample(appCAPEM: app.root.pem, peerChainDER: proxy.chain.map(\.der))
        }
    }

    @Test func theSampleIsTheREADMEsCodeBlock() throws {
        try Self.expectREADMEBlock(under: "## Evaluating a chain against your app's own CA", endingAt: "```",
                                   is: "ReadmeExampleTests.swift", between: "README-SAMPLE", droppingImports: true)
    }

    /// Expects the first Swift block of README.md under `heading`, up to `closing`, to be the code
    /// of `file` (in this folder) between `// MARKER-BEGIN` and `    // MARKER-END`, line for line:
    /// indentation and blank lines aside, and `import` lines when `droppingImports`.
    static func expectREADMEBlock(under heading: String, endingAt closing: String, is file: String, between marker: String,
                                  droppingImports: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        func lines(_ text: Substring) -> [String] {
            text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !(droppingImports && $0.hasPrefix("import ")) }
        }
        let source = try String(contentsOf: root.appendingPathComponent("Tests/TLSTrustTests/Documentation/\(file)"), encoding: .utf8)
        let begin = try #require(source.range(of: "// \(marker)-BEGIN\n"), sourceLocation: sourceLocation)
        let end = try #require(source.range(of: "    // \(marker)-END", range: begin.upperBound..<source.endIndex),
                               sourceLocation: sourceLocation)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: heading), sourceLocation: sourceLocation)
        let open = try #require(readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex), sourceLocation: sourceLocation)
        let close = try #require(readme.range(of: closing, range: open.upperBound..<readme.endIndex), sourceLocation: sourceLocation)
        #expect(lines(readme[open.upperBound..<close.lowerBound]) == lines(source[begin.upperBound..<end.lowerBound]),
                sourceLocation: sourceLocation)
    }
}
