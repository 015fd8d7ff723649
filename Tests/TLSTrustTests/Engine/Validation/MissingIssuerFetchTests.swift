import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Missing intermediates fetched from the leaf's AIA caIssuers URL, from a real HTTP server on
/// 127.0.0.1: only when the network is allowed, only when no path is found with what was sent,
/// DER or certs-only PKCS#7, bounded like revocation fetches, cached, and never trusted for more
/// than any other untrusted intermediate.
@Suite("Engine: missing issuers fetched from AIA caIssuers")
struct MissingIssuerFetchTests {
    let root: TestCertificate
    let intermediate: TestCertificate

    init() throws { (root, intermediate) = try TestHierarchy.makeIssuers() }

    /// A leaf for www.example.com issued by `issuer`, naming `urls` as its caIssuers.
    static func leaf(caIssuers urls: [String], issuer: TestCertificate) throws -> TestCertificate {
        var profile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
        profile.extensions.append(.authorityInformationAccess(ocspURLs: [], caIssuerURLs: urls))
        return try TestPKI.issue(profile, issuer: issuer)
    }

    /// The leaf alone, for www.example.com, anchored at `root`; fetching allowed or not.
    func trust(_ leaf: TestCertificate, fetching: Bool, timeout: Duration = TestDeadlines.failureBound,
               maximumSize: Int = 64 * 1024) -> Trust {
        var trust = Trust(certificates: [leaf.certificate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([root.certificate]))
        trust.revocation = RevocationPolicy(mode: .off, allowsNetworkFetch: fetching)
        trust.revocationFetcher = HTTPRevocationFetcher(limits: .init(timeout: timeout, maximumIssuerCertificatesSize: maximumSize))
        return trust
    }

    /// `certificates` as a certs-only PKCS#7 bundle, made by `openssl crl2pkcs7`.
    static func pkcs7(_ certificates: [TestCertificate]) throws -> [UInt8] {
        let directory = try TemporaryDirectory(prefix: "tlstrust-p7c")
        let file = directory.file("certs.pem")
        try TestPKI.writePEM(certificates, to: file)
        return Array(try TestPKI.openssl(["crl2pkcs7", "-nocrl", "-certfile", file.path, "-outform", "DER"]))
    }

    @Test("A leaf alone: the intermediate is fetched (DER) and the path found on every backend, then served from the cache; nothing without permission")
    func derIntermediate() async throws {
        try await offThePool {
            let server = try LocalHTTPServer(routes: ["/ca.cer": .ok(intermediate.der, contentType: "application/pkix-cert")])
            defer { server.stop() }
            let leaf = try Self.leaf(caIssuers: [server.url("/ca.cer")], issuer: intermediate)

            expectEngine(trust(leaf, fetching: false), .refused(.unknownIssuer), "not allowed to fetch")
            #expect(server.requests.isEmpty, "nothing may be fetched without permission: \(server.requests.map(\.path))")
            for backend in TestBackends.all {
                let evaluation = trust(leaf, fetching: true).evaluate(using: backend)
                #expect(evaluation.isTrusted, "\(backend.name): \(evaluation)")
                #expect(evaluation.chain == [leaf.certificate, intermediate.certificate, root.certificate], "\(backend.name)")
            }
            #expect(server.requests.map(\.path) == ["/ca.cer"], "fetched once, then cached: \(server.requests.map(\.path))")
            #expect(server.requests.first?.method == "GET")
            #expect(server.requests.first?.header("Accept")?.contains("application/pkix-cert") == true)
            // What was fetched with permission never serves an evaluation without it.
            expectEngine(trust(leaf, fetching: false), .refused(.unknownIssuer), "a cached fetch without permission")
        }
    }

    @Test("A certs-only PKCS#7 bundle (openssl crl2pkcs7) is read; its intermediate completes the path")
    func pkcs7Bundle() async throws {
        try await offThePool {
            let server = try LocalHTTPServer(routes: ["/ca.p7c": .ok(try Self.pkcs7([intermediate]), contentType: "application/pkcs7-mime")])
            defer { server.stop() }
            let leaf = try Self.leaf(caIssuers: [server.url("/ca.p7c")], issuer: intermediate)
            expectEngine(trust(leaf, fetching: true), .trusted)
        }
    }

    @Test("What is not a DER certificate or a certs-only bundle is refused with a reason naming it")
    func refusedForms() async throws {
        try await offThePool {
            let crl = try CRLBuilder(issuer: intermediate).build()
            let cases: [(String, [UInt8], String)] = [
                ("/pem", Array(intermediate.pem.utf8), "PEM"),
                ("/crl", crl, "not a DER certificate"),
                ("/empty", [], "empty"),
                ("/garbage", [0x30, 0x03, 0x02, 0x01, 0x00], "not a DER certificate"),
            ]
            let server = try LocalHTTPServer(routes: Dictionary(uniqueKeysWithValues: cases.map { ($0.0, LocalHTTPServer.Behavior.ok($0.1)) }))
            defer { server.stop() }
            for (path, _, reason) in cases {
                let leaf = try Self.leaf(caIssuers: [server.url(path)], issuer: intermediate)
                expectEngine(trust(leaf, fetching: true), .refused(.unknownIssuer), "\(path)")
                let detail = trust(leaf, fetching: true).evaluate(using: TestBackends.all[0]).failures.first?.detail ?? ""
                #expect(detail.contains(reason) && detail.contains(path), "\(path): \(detail)")
            }
        }
    }

    @Test("Bounds: a stalling server ends at the fetch deadline, an oversized answer at the size limit; neither is trusted")
    func bounds() async throws {
        try await offThePool {
            let big = [UInt8](repeating: 0x30, count: 256 * 1024)
            let server = try LocalHTTPServer(routes: [
                "/stall": .stall,
                "/big": .ok(big),
                "/endless": .streamForever(headers: [], chunked: true, interval: nil),
            ])
            defer { server.stop() }
            let stalling = try Self.leaf(caIssuers: [server.url("/stall")], issuer: intermediate)
            let started = ContinuousClock.now
            let stalled = trust(stalling, fetching: true, timeout: .milliseconds(500)).evaluate(using: TestBackends.all[0])
            let elapsed = ContinuousClock.now - started
            #expect(!stalled.isTrusted && stalled.failures.first?.code == .unknownIssuer, "\(stalled)")
            #expect(elapsed < .seconds(5), "a stalling caIssuers server held the evaluation for \(elapsed)")
            #expect(stalled.failures.first?.detail.contains("/stall") == true, "\(stalled)")

            for path in ["/big", "/endless"] {
                let leaf = try Self.leaf(caIssuers: [server.url(path)], issuer: intermediate)
                let evaluation = trust(leaf, fetching: true, maximumSize: 16 * 1024).evaluate(using: TestBackends.all[0])
                #expect(!evaluation.isTrusted && evaluation.failures.first?.code == .unknownIssuer, "\(path): \(evaluation)")
                #expect(evaluation.failures.first?.detail.contains(path) == true, "\(path): \(evaluation)")
            }
        }
    }

    @Test("A loop — the fetched certificate's caIssuers pointing back — ends: each URL is asked once")
    func loop() async throws {
        try await offThePool {
            // An intermediate from a root that is not an anchor, whose own caIssuers points at the
            // URL it is served from, and at the leaf's.
            let strangerRoot = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
            let port = try TCPListener(host: "127.0.0.1", port: 0)
            let base = "http://127.0.0.1:\(port.port)"
            port.close()
            var profile = TestHierarchy.intermediateProfile()
            profile.extensions.append(.authorityInformationAccess(ocspURLs: [], caIssuerURLs: ["\(base)/ca.cer", "\(base)/leaf.cer"]))
            let looping = try TestPKI.issue(profile, issuer: strangerRoot)
            let leaf = try Self.leaf(caIssuers: ["\(base)/ca.cer"], issuer: looping)
            let server = try LocalHTTPServer(routes: ["/ca.cer": .ok(looping.der), "/leaf.cer": .ok(leaf.der)], port: port.port)
            defer { server.stop() }
            expectEngine(trust(leaf, fetching: true), .refused(.unknownIssuer))
            let paths = server.requests.map(\.path)
            #expect(Set(paths) == ["/ca.cer", "/leaf.cer"] && paths.count <= 2 * TestBackends.all.count, "\(paths)")
        }
    }

    @Test("A fetched certificate is never trusted for more than a presented one: a fetched root is not an anchor, a fetched CA:FALSE issuer signs nothing")
    func neverMoreThanIntermediate() async throws {
        try await offThePool {
            let stranger = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
            var notCA = CertificateProfile.leaf(commonName: "Not A CA", dnsNames: ["ca.example.com"])
            notCA.keyUsage = [.digitalSignature, .keyCertSign]
            let endEntity = try TestPKI.issue(notCA, issuer: intermediate)
            let server = try LocalHTTPServer(routes: ["/root.cer": .ok(stranger.der), "/ee.p7c": .ok(try Self.pkcs7([endEntity, intermediate]))])
            defer { server.stop() }
            // A leaf signed by a root that is not an anchor: fetching that root makes no anchor of it.
            let underStranger = try Self.leaf(caIssuers: [server.url("/root.cer")], issuer: stranger)
            expectEngine(trust(underStranger, fetching: true), .refused(.untrustedRoot))
            // A leaf signed by an end-entity certificate, fetched with the intermediate above it: the
            // path reaches the anchor and is rejected.
            let underEndEntity = try Self.leaf(caIssuers: [server.url("/ee.p7c")], issuer: endEntity)
            expectEngine(trust(underEndEntity, fetching: true), .refused(.notCertificateAuthority))
        }
    }

    @Test("A complete path found with what was sent is not second-guessed: nothing is fetched")
    func noFetchWhenAPathExists() async throws {
        try await offThePool {
            let server = try LocalHTTPServer(routes: ["/ca.cer": .ok(intermediate.der)])
            defer { server.stop() }
            let leaf = try Self.leaf(caIssuers: [server.url("/ca.cer")], issuer: intermediate)
            var sent = trust(leaf, fetching: true)
            sent.certificates.append(intermediate.certificate)
            expectEngine(sent, .trusted)
            #expect(server.requests.isEmpty, "\(server.requests.map(\.path))")
        }
    }

    @Test("Only http:// caIssuers URLs are fetched; another scheme is refused by name")
    func otherSchemes() async throws {
        try await offThePool {
            let leaf = try Self.leaf(caIssuers: ["ldap://ldap.example.com/cn=CA", "https://127.0.0.1:1/ca.cer"], issuer: intermediate)
            let evaluation = trust(leaf, fetching: true).evaluate(using: TestBackends.all[0])
            #expect(evaluation.failures.first?.code == .unknownIssuer, "\(evaluation)")
            let detail = evaluation.failures.first?.detail ?? ""
            #expect(detail.contains("ldap://") && detail.contains("https://"), "\(detail)")
        }
    }

    @Test("A TLS server that sends only its leaf: each backend's client connects when fetching is allowed, and is refused otherwise",
          arguments: TestBackends.tlsNames)
    func leafOnlyTLSServer(name: String) async throws {
        let issuers = try LocalHTTPServer(routes: ["/ca.cer": .ok(intermediate.der, contentType: "application/pkix-cert")])
        defer { issuers.stop() }
        let leaf = try Self.leaf(caIssuers: [issuers.url("/ca.cer")], issuer: intermediate)
        let serverBackend = OpenSSLTrustBackend()
        let identity = try serverBackend.importIdentity(certificateChainPEM: Array(leaf.pem.utf8),
                                                        privateKeyPEM: Array(leaf.privateKey.pkcs8PEM.utf8), password: nil)
        let origin = try LocalHTTPSServer(configuration: TLSServerConfiguration(identity: identity), backend: serverBackend)
        defer { origin.stop() }
        let backend = try TLSMatrixTests.backend(name)
        var configuration = TLSClientConfiguration()
        configuration.anchors = .only([root.certificate])
        configuration.serverName = "www.example.com"
        let url = "https://www.example.com:\(origin.port)/"
        do {
            _ = try await HTTPSClient.get(url, configuration: configuration, backend: backend, connectingTo: "127.0.0.1")
            Issue.record("\(name): a leaf-only server was trusted without fetching")
        } catch let error as TLSError {
            #expect(error.code == .peerTrustRefused, "\(name): \(error)")
        }
        configuration.revocation = RevocationPolicy(mode: .off, allowsNetworkFetch: true)
        let result = try await HTTPSClient.get(url, configuration: configuration, backend: backend, connectingTo: "127.0.0.1")
        #expect(result.response.statusCode == 200, "\(name)")
        #expect(!issuers.requests.isEmpty)
    }

    @Test("IssuerCertificates reads a DER certificate and a certs-only bundle of two; a bundle with signers or CRLs is refused")
    func parser() throws {
        #expect(try IssuerCertificates.parse(intermediate.der) == [intermediate.certificate])
        let two = try IssuerCertificates.parse(try Self.pkcs7([intermediate, root]))
        #expect(Set(two) == [intermediate.certificate, root.certificate])
        let crl = try CRLBuilder(issuer: intermediate).build()
        let directory = try TemporaryDirectory(prefix: "tlstrust-p7c")
        try Data(crl).write(to: directory.file("ca.crl"))
        let withCRL = Array(try TestPKI.openssl(["crl2pkcs7", "-in", directory.file("ca.crl").path, "-inform", "DER", "-outform", "DER"]))
        #expect(throws: TLSTrustError.self) { try IssuerCertificates.parse(withCRL) }
    }
}
