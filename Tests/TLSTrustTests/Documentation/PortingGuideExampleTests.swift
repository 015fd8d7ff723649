import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// The "CA whitelist" example of docs/porting.md, verbatim, so the documentation cannot rot.
final class AppServerTrust: Sendable {
    private let anchors: TrustAnchors
    private let backend: any TrustBackend

    init(caPEM: String, backend: any TrustBackend) throws {
        anchors = .only([try Certificate(pemEncoded: caPEM)])
        self.backend = backend
    }

    /// Call with the DER chain the server presented and the host you connected to.
    func evaluate(chainDER: [[UInt8]], host: String) throws {
        let chain = try chainDER.map { try Certificate(derEncoded: $0) }
        try Trust(certificates: chain, policies: [.ssl(hostname: host)], anchors: anchors)
            .evaluateOrThrow(using: backend)
    }
}

@Suite("Documentation examples")
struct PortingGuideExampleTests {
    @Test func theCAWhitelistExampleTrustsTheAppsServerAndRefusesAProxy() throws {
        let app = try TestHierarchy.make()
        let proxy = try TestHierarchy.make()
        let evaluator = try AppServerTrust(caPEM: app.root.pem, backend: OpenSSLTrustBackend())
        try evaluator.evaluate(chainDER: app.chain.map(\.der), host: "www.example.com")
        #expect(throws: TrustEvaluationError.self) {
            try evaluator.evaluate(chainDER: proxy.chain.map(\.der), host: "www.example.com")
        }
        #expect(throws: TLSTrustError.self) {
            try evaluator.evaluate(chainDER: [[0x30, 0x00]], host: "www.example.com")
        }
    }
}
