import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

// The two samples of docs/porting.md's "AFSecurityPolicy and Alamofire's evaluators", verbatim.
// `theSamplesAreVerbatimCopiesOfTheGuide` fails when either side changes alone.

struct APIClientTrust: Sendable {
    let manager: ServerTrustManager
    let backend: any TrustBackend

    init(appCA: Certificate, pinnedKeys: [PublicKey], backend: any TrustBackend) throws {
        manager = try ServerTrustManager(evaluators: [
            "api.example.com": .publicKeys(pinnedKeys),          // Alamofire's PublicKeysTrustEvaluator
            "**.internal.example.com": .anchored([appCA]),        // the app's own CA, nothing else
        ])
        self.backend = backend
    }

    /// Call with the chain the server presented; throws ServerTrustError with the evidence.
    func check(chainDER: [[UInt8]], host: String) throws -> ServerTrustDecision {
        let chain = try chainDER.map { try Certificate(derEncoded: $0) }
        return try manager.evaluate(Trust(certificates: chain), forHost: host, using: backend)
    }
}

func makeSelfSignedServerPolicy(certificateDirectory: String) throws -> SecurityPolicy {
    // [AFSecurityPolicy policyWithPinningMode:AFSSLPinningModeCertificate
    //                  withPinnedCertificates:[AFSecurityPolicy certificatesInBundle:bundle]]
    var policy = SecurityPolicy(pinningMode: .certificate,
                                pinnedCertificates: try SecurityPolicy.certificates(inDirectory: certificateDirectory))
    policy.allowInvalidCertificates = true   // the pinned certificate is self-signed
    return policy                            // validatesDomainName stays true
}

@Suite("Documentation examples: evaluators")
struct EvaluatorPortingGuideExampleTests {
    @Test func theAPIClientExampleAnchorsInternalHostsAndRoutesByHost() throws {
        let app = try TestHierarchy.make(leafDNSNames: ["db.eu.internal.example.com"])
        let proxy = try TestHierarchy.make(leafDNSNames: ["db.eu.internal.example.com"])
        let client = try APIClientTrust(appCA: app.root.certificate, pinnedKeys: [app.intermediate.certificate.publicKey],
                                        backend: OpenSSLTrustBackend())
        let decision = try client.check(chainDER: app.chain.map(\.der), host: "db.eu.internal.example.com")
        #expect(decision.evaluator == "AnchoredTrustEvaluator")
        #expect(throws: ServerTrustError.self) { try client.check(chainDER: proxy.chain.map(\.der), host: "db.eu.internal.example.com") }
        let unknown = #expect(throws: ServerTrustError.self) { try client.check(chainDER: app.chain.map(\.der), host: "example.net") }
        #expect(unknown?.code == .noEvaluatorForHost)
        // api.example.com validates against the machine's system store first: a test CA is not in it.
        let pinned = #expect(throws: ServerTrustError.self) { try client.check(chainDER: app.chain.map(\.der), host: "api.example.com") }
        #expect(pinned?.code == .defaultEvaluationFailed)
    }

    @Test func theSelfSignedServerPolicyPinsTheBundledCertificate() throws {
        let host = "device.local.example.com"
        let server = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: nil)
        let impostor = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: nil)
        try TemporaryDirectory.with { dir in
            try TestPKI.writeDER(server, to: dir.appendingPathComponent("server.cer"))
            let policy = try makeSelfSignedServerPolicy(certificateDirectory: dir.path)
            let backend = OpenSSLTrustBackend()
            #expect(policy.evaluateServerTrust(Trust(certificates: [server.certificate]), forDomain: host, using: backend))
            #expect(!policy.evaluateServerTrust(Trust(certificates: [impostor.certificate]), forDomain: host, using: backend))
            #expect(!policy.evaluateServerTrust(Trust(certificates: [server.certificate]), forDomain: "other.example.com", using: backend))
        }
    }

    @Test func theSamplesAreVerbatimCopiesOfTheGuide() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/porting.md"), encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "## AFSecurityPolicy and Alamofire's evaluators").last)
        let blocks = section.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count == 2)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        for block in blocks {
            #expect(source.contains(block), "docs/porting.md sample not found verbatim here:\n\(block)")
        }
    }
}
