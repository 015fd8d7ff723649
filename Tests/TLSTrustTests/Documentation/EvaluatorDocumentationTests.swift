import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

// Every sample of the core's DocC catalogues (Sources/TLSTrustCore, TLSTrustDecisions,
// TLSTrustConnections), verbatim; `everySampleOfTheCatalogueIsHere`
// fails when a sample changes on one side only.

func evaluateWithTheAppCA(peerChain: [Certificate], appCA: Certificate) throws -> ServerTrustDecision {
    let evaluator: any ServerTrustEvaluating = .anchored([appCA])
    return try evaluator.evaluate(Trust(certificates: peerChain), forHost: "api.example.com",
                                  using: OpenSSLTrustBackend())
}

func makeAppTrustEvaluator(appCAPEM: String) throws -> AnchoredTrustEvaluator {
    // The app's own CA and nothing else: a proxy CA installed system-wide is refused.
    AnchoredTrustEvaluator(anchors: [try Certificate(pemEncoded: appCAPEM)])
}

func makeAFPolicies(pinned: Set<Certificate>) -> [SecurityPolicy] {
    let none = SecurityPolicy.default                       // AFSSLPinningModeNone
    let publicKey = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pinned)
    let certificate = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: pinned)
    return [none, publicKey, certificate]
}

func makePinnedServerEvaluator(serverDER: [UInt8]) throws -> any ServerTrustEvaluating {
    let server = try Certificate(derEncoded: serverDER)   // the .der file the app ships
    return .pinnedCertificates([server], acceptSelfSignedCertificates: true)
}

func makeTwoAnchorEvaluator(selfSignedCA: Certificate, publicCA: Certificate) -> AnchoredTrustEvaluator {
    AnchoredTrustEvaluator(anchors: [selfSignedCA, publicCA])
}

func evaluateWithLocalAnchor(chain: [Certificate], host: String, localCertificate: Certificate,
                             backend: any TrustBackend) throws -> ValidatedChain {
    var trust = Trust(certificates: chain, policies: [.ssl(hostname: host)])
    trust.setAnchorCertificates([localCertificate])        // SecTrustSetAnchorCertificates
    let evaluation = trust.evaluate(using: backend)        // SecTrustEvaluateWithError
    guard let validated = evaluation.validatedChain,       // nil unless trusted
          validated.firstIndex(ofAnyPublicKeyIn: [localCertificate.publicKey]) != nil
    else { throw TrustEvaluationError(evaluation: evaluation) }
    return validated
}

@Suite("Documentation examples: the DocC catalogue")
struct EvaluatorDocumentationTests {
    let w: EvaluatorWorld
    init() throws { w = try EvaluatorWorld() }
    let backend = OpenSSLTrustBackend()

    @Test func theOverviewAndTheAppCAArticleRefuseAProxy() throws {
        #expect(try evaluateWithTheAppCA(peerChain: w.app.chain.certificates, appCA: w.app.root.certificate).validatedChain?.count == 3)
        #expect(throws: ServerTrustError.self) { try evaluateWithTheAppCA(peerChain: w.rogue.chain.certificates, appCA: w.app.root.certificate) }
        let evaluator = try makeAppTrustEvaluator(appCAPEM: w.app.root.pem)
        _ = try evaluator.evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend)
        // The rogue CA is in the (test) system store; the evaluator does not consult it.
        let e = expectRefusal(.defaultEvaluationFailed) { try evaluator.evaluate(w.trust(w.rogue.chain), forHost: EvaluatorWorld.host, using: backend) }
        #expect(e?.evaluation?.primaryFailure?.code == .unknownIssuer)
    }

    @Test func theAFSecurityPolicyArticlesThreeModes() throws {
        let policies = makeAFPolicies(pinned: [w.real.intermediate.certificate])
        #expect(policies.map(\.pinningMode) == [.none, .publicKey, .certificate])
        for policy in policies {
            #expect(policy.evaluateServerTrust(w.trust(w.real.chain), forDomain: EvaluatorWorld.host, using: backend), "\(policy)")
            #expect(!policy.evaluateServerTrust(w.trust(w.app.chain), forDomain: EvaluatorWorld.host, using: backend), "\(policy)")
        }
        // The rogue chain is system-trusted: only the pinning modes refuse it.
        #expect(policies.map { $0.evaluateServerTrust(w.trust(w.rogue.chain), forDomain: EvaluatorWorld.host, using: backend) } == [true, false, false])
    }

    @Test func thePinnedSelfSignedServerArticle() throws {
        let evaluator = try makePinnedServerEvaluator(serverDER: w.selfSigned.der)
        #expect(try evaluator.evaluate(w.trust([w.selfSigned]), forHost: EvaluatorWorld.host, using: backend).pinMatch?.chainIndex == 0)
        let other = try TestPKI.issue(.leaf(commonName: EvaluatorWorld.host, dnsNames: [EvaluatorWorld.host]), issuer: nil)
        expectRefusal(.defaultEvaluationFailed) { try evaluator.evaluate(w.trust([other]), forHost: EvaluatorWorld.host, using: backend) }
        expectRefusal(.hostValidationFailed) { try evaluator.evaluate(w.trust([w.selfSigned]), forHost: "other.example.com", using: backend) }
    }

    @Test func theTwoAnchorsArticle() throws {
        let evaluator = makeTwoAnchorEvaluator(selfSignedCA: w.app.root.certificate, publicCA: w.real.root.certificate)
        #expect(try evaluator.evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend).validatedChain?.anchor == w.app.root.certificate)
        #expect(try evaluator.evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend).validatedChain?.anchor == w.real.root.certificate)
        expectRefusal(.defaultEvaluationFailed) { try evaluator.evaluate(w.trust(w.rogue.chain), forHost: EvaluatorWorld.host, using: backend) }
    }

    @Test func theLocalAnchorArticle() throws {
        let chain = try evaluateWithLocalAnchor(chain: w.app.chain.certificates, host: EvaluatorWorld.host,
                                                localCertificate: w.app.root.certificate, backend: backend)
        #expect(chain.anchor == w.app.root.certificate)
        #expect(throws: TrustEvaluationError.self) {
            try evaluateWithLocalAnchor(chain: w.rogue.chain.certificates + [w.app.root.certificate], host: EvaluatorWorld.host,
                                        localCertificate: w.app.root.certificate, backend: backend)
        }
    }

    @Test func theWritingABackendArticle() throws {
        let trust = Trust(certificates: w.app.chain.certificates, policies: [.ssl(hostname: EvaluatorWorld.host)],
                          anchors: .only([w.app.root.certificate]))
        #expect(trust.evaluate(using: LoggingBackend(provider: backend)).isTrusted)
    }

    @Test func everySampleOfTheCatalogueIsHere() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let catalogues = ["TLSTrustCore", "TLSTrustDecisions", "TLSTrustConnections"]
            .map { root.appendingPathComponent("Sources/\($0)/\($0).docc") }
        let articles = try catalogues.flatMap { catalogue in
            try FileManager.default.contentsOfDirectory(atPath: catalogue.path).filter { $0.hasSuffix(".md") }
                .map { catalogue.appendingPathComponent($0) }
        }
        #expect(articles.count == 9)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        var samples = 0
        for article in articles {
            let text = try String(contentsOf: article, encoding: .utf8)
            for block in text.components(separatedBy: "```swift\n").dropFirst().map({ $0.components(separatedBy: "```")[0] }) {
                samples += 1
                #expect(source.contains(block), "\(article.lastPathComponent): sample not found verbatim here:\n\(block)")
            }
        }
        #expect(samples == 7)
    }
}

// The "Writing a backend" article's sample, verbatim.
struct LoggingBackend: TrustBackend {
    let provider: any TrustBackend
    var name: String { "logging" }
    var libraryVersion: String { provider.libraryVersion }
    var providerIdentity: ProviderIdentity { ProviderIdentity(wrapping: provider.providerIdentity, in: Self.self) }
    var signatureAlgorithms: SupportedSignatureAlgorithms { provider.signatureAlgorithms }

    func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey {
        print("importing", key.pin)
        return try provider.importPublicKey(key)
    }
}
