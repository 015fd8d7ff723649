import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Fetching (issue 22): only when the policy allows it, from the certificate's own AIA responder
/// and CRL distribution points, over plain HTTP to real servers on 127.0.0.1 — a real
/// `openssl ocsp` responder and a scripted HTTP server — with answers cached until nextUpdate and
/// no fetch while a fresh answer is at hand. Hostile servers end in bounded time, never in trust.
@Suite("Engine: revocation — fetching OCSP responses and CRLs")
struct RevocationFetchTests {
    let root: TestCertificate
    let intermediate: TestCertificate

    init() throws {
        root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        intermediate = try TestPKI.issue(TestHierarchy.intermediateProfile(), issuer: root)
    }

    /// A leaf for www.example.com naming `ocsp` and/or `crl` URLs, with a serial chosen up front
    /// (so that answers about it can be made before it exists).
    func leaf(serial: [UInt8] = Array(UUID().uuidString.utf8.prefix(12)), ocsp: [String] = [], crl: [String] = []) throws -> TestCertificate {
        var profile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
            .withRevocationPointers(ocspURLs: ocsp, crlURLs: crl)
        profile.serialNumber = [0x01] + serial
        return try TestPKI.issue(profile, issuer: intermediate)
    }

    func trust(_ leaf: TestCertificate, _ policy: RevocationPolicy, timeout: Duration = .seconds(2)) -> Trust {
        var trust = Trust(certificates: [leaf.certificate, intermediate.certificate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([root.certificate]))
        trust.revocation = policy
        trust.revocationFetcher = HTTPRevocationFetcher(limits: .init(timeout: timeout))
        return trust
    }

    static let fetching = RevocationPolicy(mode: .hard, scope: .leafOnly, allowsNetworkFetch: true)
    static let offline = RevocationPolicy(mode: .hard, scope: .leafOnly)

    @Test("OCSP from a real openssl responder: good, revoked; nothing is fetched unless allowed")
    func openSSLResponder() throws {
        let goodSerial: [UInt8] = [0x01, 0x11, 0x22, 0x33], revokedSerial: [UInt8] = [0x01, 0x44, 0x55, 0x66]
        let responder = try OpenSSLOCSPResponder(issuer: intermediate, entries: [
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

    @Test("CRLs from a distribution point; cached until nextUpdate; a stapled answer means no fetch")
    func crlDistributionPoint() throws {
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

    @Test("A responder that answers with another nonce is not believed; one that echoes none is")
    func nonces() throws {
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

    @Test("Hostile servers end in bounded time and never in trust under hard-fail", arguments: [
        "stall", "stream", "redirect-https", "404", "garbage", "close",
    ])
    func hostileServers(_ behaviour: String) throws {
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
        #expect(detail.contains("fetch") || detail.contains("fetched"), "\(behaviour): \(detail)")
        var soft = Self.fetching
        soft.mode = .soft
        #expect(trust(hostile, soft, timeout: .seconds(1)).evaluate(using: TestBackends.all[0]).isTrusted, "soft: judged without an answer")
    }
}
