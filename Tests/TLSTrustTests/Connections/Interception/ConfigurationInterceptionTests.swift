import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// A live intercepting proxy (TLSTrustLocalServers', whose CA the "user installed") between each
/// backend's TLS client and an origin, the client judged by an app's configuration in the
/// handshake: Android `<trust-anchors>`, TrustKit in code, and JSON with an OkHttp pattern.
@Suite("Configurations against a live intercepting proxy", .serialized)
struct ConfigurationInterceptionTests {

    @Test("installed proxy CA: fooled without a configuration; refused in the handshake by each configuration", arguments: TestBackends.tlsNames)
    func interception(name: String) async throws {
        let client = try TLSMatrixTests.backend(name)
        let server = try TLSMatrixTests.backend("openssl")
        let app = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let identity = try server.importIdentity(certificateChainPEM: Array((app.leaf.pem + app.intermediate.pem).utf8),
                                                 privateKeyPEM: Array(app.leaf.privateKey.pkcs8PEM.utf8), password: nil)
        let origin = try LocalHTTPSServer(configuration: TLSServerConfiguration(identity: identity), backend: server) { _ in
            (200, "the origin's answer\n")
        }
        defer { origin.stop() }
        let interceptor = try InterceptingProxy(backend: server, upstreamAnchors: .only([app.root.certificate])) { _, _ in
            ("127.0.0.1", origin.port)
        }
        defer { interceptor.stop() }
        let proxy = HTTPSClient.Proxy(host: "127.0.0.1", port: interceptor.port)
        let url = "https://api.example.com:\(origin.port)/"

        var device = TLSClientConfiguration()
        device.timeouts = TestDeadlines.tls
        // The device trusts the system store, the app's (public) CA and the proxy's CA.
        device.anchors = TrustAnchors([app.root.certificate, interceptor.certificateAuthority.certificate], includingSystemStore: true)

        // Without a configuration the proxy reads the request.
        let fooled = try await Self.withPeerLogs(interceptor, origin) {
            try await HTTPSClient.get(url, configuration: device, backend: client, proxy: proxy)
        }
        #expect(fooled.response.statusCode == 200)
        #expect(fooled.peerCertificates.first?.issuer == interceptor.certificateAuthority.certificate.subject)

        try await TemporaryDirectory.with { dir in
            let res = dir.appendingPathComponent("res")
            try FileManager.default.createDirectory(at: res.appendingPathComponent("xml"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: res.appendingPathComponent("raw"), withIntermediateDirectories: true)
            try TestPKI.writePEM([app.root], to: res.appendingPathComponent("raw/my_ca.pem"))
            let file = res.appendingPathComponent("xml/network_security_config.xml")
            try Data("""
                <?xml version="1.0" encoding="utf-8"?>
                <network-security-config>
                    <domain-config>
                        <domain includeSubdomains="true">example.com</domain>
                        <trust-anchors><certificates src="@raw/my_ca"/></trust-anchors>
                    </domain-config>
                </network-security-config>
                """.utf8).write(to: file)
            let android = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path)
            let trustKit = try PinningConfiguration(trustKitConfiguration: [
                kTSKPinnedDomains: ["api.example.com": [
                    kTSKPublicKeyHashes: [app.intermediate.certificate.publicKey.pin, app.root.certificate.publicKey.pin].map { String($0.dropFirst(7)) },
                ]],
            ])
            let json = try PinningConfiguration(json: Array("""
                {"domains": {"*.example.com": {"pins": ["\(app.leaf.certificate.publicKey.pin)", "\(app.root.certificate.publicKey.pin)"]}}}
                """.utf8))
            for (label, configuration, expected) in [("Android", android, ServerTrustError.Code.defaultEvaluationFailed),
                                                     ("TrustKit", trustKit, .pinSetFailed), ("JSON", json, .pinSetFailed)] {
                var guarded = device
                guarded.challengeHandler = TLSChallengeHandlers.evaluator(PinSetTrustEvaluator(configuration))
                do {
                    let result = try await HTTPSClient.get(url, configuration: guarded, backend: client, proxy: proxy)
                    Issue.record("\(label): the proxy was let through: \(result.response.statusCode)")
                } catch let error as TLSError {
                    #expect(error.code == .peerTrustRefused, "\(label): \(error)")
                    #expect((error.underlying as? ServerTrustError)?.code == expected, "\(label): \(error)")
                }
                // Straight to the origin, the same configuration accepts the real server.
                let direct = try await Self.withPeerLogs(interceptor, origin) {
                    try await HTTPSClient.get(url, configuration: guarded, backend: client, connectingTo: "127.0.0.1")
                }
                #expect(direct.response.statusCode == 200, "\(label)")
            }
        }
        // Only the unguarded request reached the proxy's log of readable requests.
        #expect(interceptor.interceptedRequests.count == 1)
    }

    /// Runs a request; when it fails, the failure carries what the proxy and the origin saw, so
    /// that a CI log says which side ended the connection, and why.
    static func withPeerLogs<T>(_ proxy: InterceptingProxy, _ origin: LocalHTTPSServer,
                                _ request: () async throws -> T) async throws -> T {
        do {
            return try await request()
        } catch {
            throw PeerLogs(failure: "\(error)", proxy: proxy.errors, origin: origin.errors)
        }
    }

    struct PeerLogs: Error, CustomStringConvertible {
        let failure: String
        let proxy: [String]
        let origin: [String]
        var description: String { "\(failure) — the proxy's log: \(proxy); the origin's log: \(origin)" }
    }
}
