import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The real thing: mitmproxy (from PyPI, installed by `.ci/setup test`) intercepting each
/// backend's HTTPS requests on 127.0.0.1. Default trust with mitmproxy's CA installed accepts it —
/// the attack works — while a CA whitelist and a pin refuse it in the handshake.
@Suite("mitmproxy against every backend", .enabled(if: ExternalTLSPeer.mitmdumpPath != nil,
                                                   "mitmdump is not installed: run `.ci/setup test`"),
       .serialized)
struct MitmproxyTests {

    @Test("Installed CA: fooled; app CA only: refused; pinned key: refused", arguments: TestBackends.tlsNames)
    func interception(name: String) async throws {
        let client = try TLSMatrixTests.backend(name)
        let originBackend = try TLSMatrixTests.backend("openssl")
        let pki = try TestHierarchy.make(leafDNSNames: ["localhost"], leafIPAddresses: ["127.0.0.1"])
        let identity = try originBackend.importIdentity(certificateChainPEM: Array((pki.leaf.pem + pki.intermediate.pem).utf8),
                                                        privateKeyPEM: Array(pki.leaf.privateKey.pkcs8PEM.utf8), password: nil)
        let origin = try LocalHTTPSServer(configuration: TLSServerConfiguration(identity: identity), backend: originBackend) { _ in
            (200, "the origin's answer\n")
        }
        defer { origin.stop() }
        let mitmproxy = try ExternalTLSPeer.mitmproxy(upstreamCA: pki.root)
        defer { mitmproxy.stop() }
        let mitmCA = try #require(mitmproxy.mitmproxyCA)
        let proxy = HTTPSClient.Proxy(host: "127.0.0.1", port: mitmproxy.port)
        let url = "https://127.0.0.1:\(origin.port)/"

        var base = TLSClientConfiguration()
        base.timeouts = TestDeadlines.tls

        // The user installed mitmproxy's CA: system store + that CA. The attack works.
        var installed = base
        installed.anchors = TrustAnchors([mitmCA], includingSystemStore: true)
        let fooled = try await HTTPSClient.get(url, configuration: installed, backend: client, proxy: proxy)
        #expect(fooled.response.statusCode == 200)
        #expect(fooled.response.text.contains("the origin's answer"), "the request went through mitmproxy to the origin")
        #expect(fooled.peerCertificates.first?.issuer == mitmCA.subject, "the certificate was mitmproxy's forgery")

        // The app trusts its own CA only.
        var whitelist = base
        whitelist.anchors = .only([pki.root.certificate])
        await Self.expectRefused(url, whitelist, client, proxy) { error in
            #expect(error.evaluation?.primaryFailure?.code == .unknownIssuer, "\(error)")
        }

        // The app pins its server's key (on top of the installed-CA store).
        var pinned = installed
        pinned.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([pki.leaf.certificate.publicKey]))
        await Self.expectRefused(url, pinned, client, proxy) { error in
            #expect((error.underlying as? ServerTrustError)?.code == .publicKeyPinningFailed, "\(error)")
        }

        // And straight to the origin, the same pin is satisfied.
        var direct = base
        direct.anchors = .only([pki.root.certificate])
        direct.challengeHandler = pinned.challengeHandler
        let genuine = try await HTTPSClient.get(url, configuration: direct, backend: client)
        #expect(genuine.response.statusCode == 200)
    }

    static func expectRefused(_ url: String, _ configuration: TLSClientConfiguration, _ backend: any TLSBackend,
                              _ proxy: HTTPSClient.Proxy, _ check: (TLSError) -> Void) async {
        do {
            _ = try await HTTPSClient.get(url, configuration: configuration, backend: backend, proxy: proxy)
            Issue.record("\(backend.name) trusted mitmproxy's forged certificate")
        } catch let error as TLSError {
            #expect(error.code == .peerTrustRefused, "\(error)")
            check(error)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
