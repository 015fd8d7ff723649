import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Fetching: only when the policy allows it, from the certificate's own AIA responder
/// and CRL distribution points, over plain HTTP to real servers on 127.0.0.1 — a real
/// `openssl ocsp` responder and a scripted HTTP server — with answers cached until nextUpdate and
/// no fetch while a fresh answer is at hand. Hostile servers end in bounded time, never in trust.
@Suite("Engine: revocation — fetching OCSP responses and CRLs")
struct RevocationFetchTests {
    let root: TestCertificate
    let intermediate: TestCertificate

    init() throws { (root, intermediate) = try TestHierarchy.makeIssuers() }

    /// A leaf for www.example.com naming `ocsp` and/or `crl` URLs, with a serial chosen up front
    /// (so that answers about it can be made before it exists).
    func leaf(serial: [UInt8] = Array(UUID().uuidString.utf8.prefix(12)), ocsp: [String] = [], crl: [String] = []) throws -> TestCertificate {
        var profile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
            .withRevocationPointers(ocspURLs: ocsp, crlURLs: crl)
        profile.serialNumber = [0x01] + serial
        return try TestPKI.issue(profile, issuer: intermediate)
    }

    func trust(_ leaf: TestCertificate, _ policy: RevocationPolicy, timeout: Duration = TestDeadlines.failureBound) -> Trust {
        var trust = Trust(certificates: [leaf.certificate, intermediate.certificate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([root.certificate]))
        trust.revocation = policy
        trust.revocationFetcher = HTTPRevocationFetcher(limits: .init(timeout: timeout))
        return trust
    }

    static let fetching = RevocationPolicy(mode: .hard, scope: .leafOnly, allowsNetworkFetch: true)
    static let offline = RevocationPolicy(mode: .hard, scope: .leafOnly)

    @Test("OCSP from a real openssl responder, signing as the issuer or as a delegated responder: good, revoked; nothing is fetched unless allowed",
          arguments: [false, true])
    func openSSLResponder(delegated: Bool) async throws {
        try await offThePool {
            let goodSerial: [UInt8] = [0x01, 0x11, 0x22, 0x33, delegated ? 1 : 0], revokedSerial: [UInt8] = [0x01, 0x44, 0x55, 0x66, delegated ? 1 : 0]
            let signer = delegated ? try TestPKI.issue(.ocspResponder(), issuer: intermediate) : nil
            let responder = try OpenSSLOCSPResponder(issuer: intermediate, signer: signer, entries: [
                .init(serialNumber: goodSerial, status: .valid),
                .init(serialNumber: revokedSerial, status: .revoked(at: Date(timeIntervalSinceNow: -86400), reason: "keyCompromise")),
            ])
            defer { responder.stop() }
            var goodProfile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
                .withRevocationPointers(ocspURLs: [responder.url])
            goodProfile.serialNumber = goodSerial
            var revokedProfile = goodProfile
            revokedProfile.serialNumber = revokedSerial
            let goodLeaf = try TestPKI.issue(goodProfile, issuer: intermediate)
            let revokedLeaf = try TestPKI.issue(revokedProfile, issuer: intermediate)

            expectEngine(trust(goodLeaf, Self.offline), .refused(.revocationStatusUnknown), "not allowed to fetch")
            for (i, backend) in TestBackends.all.enumerated() {
                // The first evaluation fetches; the answer is then kept until its nextUpdate, and every
                // later one (each backend verifying its signature once) reads it from the cache.
                let evaluation = trust(goodLeaf, Self.fetching).evaluate(using: backend)
                #expect(evaluation.isTrusted, "\(backend.name): \(evaluation) \(evaluation.revocation) \(responder.log)")
                #expect(evaluation.revocation.first?.source == (i == 0 ? .fetchedOCSPResponse : .cachedOCSPResponse),
                        "\(backend.name): \(evaluation.revocation)")
            }
            expectEngine(trust(revokedLeaf, Self.fetching), .refused(.revoked))
        }
    }

    @Test("CRLs from a distribution point; cached until nextUpdate; a stapled answer means no fetch")
    func crlDistributionPoint() async throws {
        try await offThePool {
            let serial: [UInt8] = Array("crl-dp-leaf!".utf8)
            var builder = try CRLBuilder(issuer: intermediate)
            builder.entries = [.init(serialNumber: [0x01] + serial)]
            let revokingCRL = try builder.build()
            let server = try LocalHTTPServer(routes: ["/ca.crl": .ok(revokingCRL, contentType: "application/pkix-crl")])
            defer { server.stop() }
            let revoked = try leaf(serial: serial, crl: [server.url("/ca.crl")])
            let other = try leaf(crl: [server.url("/ca.crl")])

            let first = trust(revoked, Self.fetching).evaluate(using: TestBackends.all[0])
            #expect(first.failures.first?.code == .revoked, "\(first)")
            #expect(first.revocation.first?.source == .fetchedCRL)
            let fetches = server.requests.count
            #expect(fetches == 1)
            let second = trust(other, Self.fetching).evaluate(using: TestBackends.all[0])
            #expect(second.isTrusted, "\(second) \(second.revocation)")
            #expect(second.revocation.first?.source == .cachedCRL)
            #expect(server.requests.count == fetches, "the cached CRL answered: no second download")

            // A fresh stapled answer: nothing is fetched at all.
            let stapledLeaf = try leaf(crl: [server.url("/never.crl")])
            var stapled = trust(stapledLeaf, Self.fetching)
            stapled.stapledOCSPResponses = [try TestPKI.ocspResponse(for: stapledLeaf, issuer: intermediate)]
            let answered = stapled.evaluate(using: TestBackends.all[0])
            #expect(answered.isTrusted && answered.revocation.first?.source == .stapledOCSPResponse)
            #expect(!server.requests.contains { $0.path == "/never.crl" })
        }
    }

    @Test("A CRL made by openssl ca -gencrl, served over HTTP from 127.0.0.1, revokes through the fetch path")
    func opensslGeneratedCRLOverHTTP() async throws {
        try await offThePool {
            let serial: [UInt8] = [0x01, 0x5E, 0xC0, 0x0D]
            let directory = try TemporaryDirectory(prefix: "tlstrust-gencrl")
            let caFile = directory.file("ca.pem"), keyFile = directory.file("ca.key"), crlFile = directory.file("ca.crl")
            try TestPKI.writePEM([intermediate], to: caFile)
            try TestPKI.writePEM(intermediate.privateKey, to: keyFile)
            // openssl ca's database: the leaf's serial, revoked an hour ago for keyCompromise.
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "UTC")
            format.dateFormat = "yyMMddHHmmss'Z'"
            let hex = serial.map { String(format: "%02X", $0) }.joined()
            try "R\t\(format.string(from: Date(timeIntervalSinceNow: 365 * 86400)))\t\(format.string(from: Date(timeIntervalSinceNow: -3600))),keyCompromise\t\(hex)\tunknown\t/CN=www.example.com\n"
                .write(to: directory.file("index.txt"), atomically: true, encoding: .utf8)
            try "01\n".write(to: directory.file("crlnumber"), atomically: true, encoding: .utf8)
            try """
                [ ca ]
                default_ca = test_ca
                [ test_ca ]
                database = \(directory.file("index.txt").path)
                crlnumber = \(directory.file("crlnumber").path)
                default_md = sha256
                default_crl_days = 1

                """.write(to: directory.file("ca.cnf"), atomically: true, encoding: .utf8)
            try TestPKI.openssl(["ca", "-gencrl", "-batch", "-config", directory.file("ca.cnf").path, "-keyfile", keyFile.path,
                                 "-cert", caFile.path, "-out", crlFile.path])
            let crl = try [UInt8](Data(contentsOf: crlFile))  // PEM, as openssl writes it
            let server = try LocalHTTPServer(routes: ["/gencrl.crl": .ok(crl, contentType: "application/pkix-crl")])
            defer { server.stop() }
            let revoked = try leaf(serial: Array(serial.dropFirst()), crl: [server.url("/gencrl.crl")])
            let evaluation = trust(revoked, Self.fetching).evaluate(using: TestBackends.all[0])
            #expect(evaluation.failures.first?.code == .revoked, "\(evaluation)")
            #expect(evaluation.revocation.first?.source == .fetchedCRL)
            #expect(evaluation.revocation.first?.reason == .keyCompromise)
            let good = try leaf(crl: [server.url("/gencrl.crl")])
            expectEngine(trust(good, Self.fetching), .trusted, "not listed by openssl's CRL")
        }
    }

    @Test("A responder that answers with another nonce is not believed; one that echoes none is")
    func nonces() async throws {
        try await offThePool {
            let serial: [UInt8] = Array("nonce-leaf!!".utf8)
            // A CertID names the issuer and the serial only: a twin with the same serial gives it.
            let certID = try OCSPResponseBuilder.CertID(certificate: try leaf(serial: serial), issuer: intermediate)
            var wrong = try OCSPResponseBuilder(signer: intermediate, responses: [.init(certID: certID, status: .good)])
            wrong.nonce = Array("not the nonce sent".utf8)
            var none = wrong
            none.nonce = nil
            let server = try LocalHTTPServer(routes: ["/wrong": .ok(try wrong.build()), "/none": .ok(try none.build())])
            defer { server.stop() }
            expectEngine(trust(try leaf(serial: serial, ocsp: [server.url("/wrong")]), Self.fetching), .refused(.revocationStatusUnknown))
            expectEngine(trust(try leaf(serial: serial, ocsp: [server.url("/none")]), Self.fetching), .trusted)
        }
    }

    @Test("Hostile servers end in bounded time and never in trust under hard-fail", arguments: [
        "stall", "stream", "redirect-https", "404", "garbage", "close",
    ])
    func hostileServers(_ behaviour: String) async throws {
        try await offThePool {
            let route: LocalHTTPServer.Behavior = switch behaviour {
            case "stall": .stall
            case "stream": .streamForever(headers: [], chunked: false, interval: nil)
            case "redirect-https": .redirect(to: "https://127.0.0.1:1/ocsp", status: 302)
            case "404": .respond(status: 404, headers: [], body: [])
            case "garbage": .ok(Array("this is not an OCSP response".utf8))
            default: .close
            }
            let server = try LocalHTTPServer(routes: ["/ocsp": route, "/crl": route])
            defer { server.stop() }
            let hostile = try leaf(ocsp: [server.url("/ocsp")], crl: [server.url("/crl")])
            let start = ContinuousClock.now
            let evaluation = trust(hostile, Self.fetching, timeout: .seconds(1)).evaluate(using: TestBackends.all[0])
            let elapsed = ContinuousClock.now - start
            #expect(evaluation.failures.first?.code == .revocationStatusUnknown, "\(behaviour): \(evaluation)")
            #expect(elapsed < .seconds(6), "\(behaviour): \(elapsed) for two fetches of at most 1 s each")
            let detail = evaluation.revocation.first?.detail ?? ""
            #expect(detail.contains("fetch"), "\(behaviour): \(detail)")
            var soft = Self.fetching
            soft.mode = .soft
            #expect(trust(hostile, soft, timeout: .seconds(1)).evaluate(using: TestBackends.all[0]).isTrusted, "soft: judged without an answer")
        }
    }
}
