import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// What the network brings is judged whole and paid for apart: every CRL a distribution point
/// serves is judged; their signatures are paid from the fetch budget, so a point serving a
/// hundred forged CRLs makes the network "no answer", not the evaluation a refusal; and every
/// fetch ends by its deadline, name lookup included — against real servers on 127.0.0.1 and a
/// resolver whose lookup never returns.
@Suite("Engine: revocation — what fetches bring, and when they end")
struct RevocationAvailabilityTests {
    let root: TestCertificate
    let intermediate: TestCertificate

    init() throws { (root, intermediate) = try TestHierarchy.makeIssuers() }

    func leaf(crl: [String]) throws -> TestCertificate {
        let profile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]).withRevocationPointers(crlURLs: crl)
        return try TestPKI.issue(profile, issuer: intermediate)
    }

    func trust(_ leaf: TestCertificate, _ mode: RevocationPolicy.Mode) -> Trust {
        var trust = Trust(certificates: [leaf.certificate, intermediate.certificate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([root.certificate]))
        trust.revocation = RevocationPolicy(mode: mode, scope: .leafOnly, allowsNetworkFetch: true)
        trust.revocationFetcher = HTTPRevocationFetcher(limits: .init(timeout: .seconds(5)))
        return trust
    }

    @Test("Every CRL of a fetched PEM is judged: the second one's revocation is not hidden by the first one's 'good'")
    func everyFetchedCRLJudged() async throws {
        try await offThePool {
            let serial: [UInt8] = [0x01] + Array(UUID().uuidString.utf8.prefix(10))
            var profile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
            let path = "/two-\(UUID().uuidString).crl"
            var good = try CRLBuilder(issuer: intermediate)
            good.crlNumber = 7
            var revoking = try CRLBuilder(issuer: intermediate)
            revoking.crlNumber = 8
            revoking.entries = [.init(serialNumber: serial)]
            let server = try LocalHTTPServer(routes: [path: .ok(CRLBuilder.pem([try good.build(), try revoking.build()]))])
            defer { server.stop() }
            profile = profile.withRevocationPointers(crlURLs: [server.url(path)])
            profile.serialNumber = serial
            let leaf = try TestPKI.issue(profile, issuer: intermediate)
            expectEngine(trust(leaf, .soft), .refused(.revoked))
        }
    }

    @Test("A distribution point serving 100 forged CRLs spends the fetch budget, not the evaluation's: soft-fail trusts, hard-fail has no answer")
    func hundredForgedCRLs() async throws {
        try await offThePool {
            let forger = try TestPKI.issue(TestHierarchy.intermediateProfile(), issuer: nil)
            let forged = try (0..<100).map { n -> [UInt8] in
                var builder = try CRLBuilder(issuer: forger)
                builder.crlNumber = n + 1
                return try builder.build()
            }
            let server = try LocalHTTPServer(routes: ["/forged.crl": .ok(CRLBuilder.pem(forged))])
            defer { server.stop() }
            let leaf = try leaf(crl: [server.url("/forged.crl")])
            expectEngine(trust(leaf, .soft), .trusted, "the network is no answer; soft-fail judges without one")
            expectEngine(trust(leaf, .hard), .refused(.revocationStatusUnknown))
            let evaluation = trust(leaf, .soft).evaluate(using: TestBackends.all[0])
            #expect(!evaluation.failures.contains { $0.code == .budgetExhausted }, "\(evaluation)")
            #expect(evaluation.revocation.first?.detail.contains("fetch budget") ?? false, "\(evaluation.revocation)")
        }
    }

    /// A resolver whose lookup never returns until released (a DNS server that never answers).
    final class SilentResolver: HostNameResolving, @unchecked Sendable {
        let release = DispatchSemaphore(value: 0)
        func resolve(host: String, port: Int) throws -> [ResolvedAddress] {
            release.wait()
            throw TLSError(.connectFailed, "released")
        }
    }

    @Test("A name that never resolves holds a fetch no longer than its deadline")
    func nameLookupIsBounded() async throws {
        try await offThePool {
            let resolver = SilentResolver()
            defer { for _ in 0..<4 { resolver.release.signal() } }
            let fetcher = HTTPRevocationFetcher(limits: .init(timeout: .seconds(1)), resolver: resolver)
            let start = ContinuousClock.now
            #expect(throws: TLSTrustError.self) {
                _ = try fetcher.fetchCRL(from: "http://never-answers.example/ca.crl", deadline: .now + .seconds(30))
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed < .milliseconds(1500), "\(elapsed) against a 1 s limit")

            let start2 = ContinuousClock.now
            #expect(throws: TLSTrustError.self) {
                _ = try fetcher.fetchOCSPResponse(request: [0x30, 0x00], responderURL: "http://never-answers.example/ocsp",
                                                  deadline: .now + .milliseconds(300))
            }
            #expect(ContinuousClock.now - start2 < .milliseconds(800), "the caller's earlier deadline bounds the lookup too")

            // The whole evaluation: a certificate naming that host, hard-fail, ends in time and untrusted.
            let leaf = try leaf(crl: ["http://never-answers.example/ca.crl"])
            var trust = trust(leaf, .hard)
            trust.revocationFetcher = fetcher
            let start3 = ContinuousClock.now
            let evaluation = trust.evaluate(using: TestBackends.all[0])
            #expect(ContinuousClock.now - start3 < .seconds(3))
            #expect(evaluation.failures.first?.code == .revocationStatusUnknown, "\(evaluation)")
        }
    }

    @Test("The system resolver: an IP literal needs no lookup, and a real lookup is bounded too")
    func systemResolver() async throws {
        try await offThePool {
            let server = try LocalHTTPServer(routes: ["/x": .ok([0x01])])
            defer { server.stop() }
            let body = try HTTPRevocationFetcher().fetchCRL(from: server.url("/x"), deadline: .now + .seconds(5))
            #expect(body == [0x01])
            let addresses = try HostNameResolution.resolve(host: "localhost", port: 80, deadline: .now + .seconds(5))
            #expect(!addresses.isEmpty)
        }
    }
}

extension RevocationAvailabilityTests {
    @Test("Hard-fail: a distribution point that serves another partition's CRL (an on-path attacker) gives no answer")
    func fetchedCRLOfAnotherPartition() async throws {
        try await offThePool {
            var partition2 = try CRLBuilder(issuer: intermediate)
            partition2.issuingDistributionPoint = .init(distributionPoint: .fullName([.uri("http://crl.example/part2.crl")]))
            var relative = try CRLBuilder(issuer: intermediate)
            relative.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer([.organizationalUnit("part 2")]))
            let attacker = try LocalHTTPServer(routes: ["/part1.crl": .ok(CRLBuilder.pem([try partition2.build(), try relative.build()]))])
            defer { attacker.stop() }
            let leaf = try leaf(crl: [attacker.url("/part1.crl")])
            expectEngine(trust(leaf, .hard), .refused(.revocationStatusUnknown))
            let detail = trust(leaf, .hard).evaluate(using: TestBackends.all[0]).revocation.first?.detail ?? ""
            #expect(detail.contains("no CRL served there covers"), "\(detail)")
        }
    }
}
