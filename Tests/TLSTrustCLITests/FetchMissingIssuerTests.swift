import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// `tlstrust fetch --allow-fetch` against a real HTTPS server that sends only its leaf: the
/// intermediate is fetched from the leaf's AIA caIssuers URL (a real HTTP server on 127.0.0.1),
/// on every backend; without `--allow-fetch` the server is not trusted and nothing is asked.
@Suite("tlstrust fetch: a server that sends only its leaf")
struct FetchMissingIssuerTests {
    @Test("--allow-fetch fetches the missing intermediate, on every backend; without it: exit 1, unknownIssuer, nothing requested")
    func leafOnlyServer() async throws {
        try await offThePool {
            let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
            let intermediate = try TestPKI.issue(TestHierarchy.intermediateProfile(), issuer: root)
            let issuers = try LocalHTTPServer(routes: ["/ca.cer": .ok(intermediate.der, contentType: "application/pkix-cert")])
            defer { issuers.stop() }
            var profile = CertificateProfile.leaf(commonName: testHost, dnsNames: [testHost])
            profile.extensions.append(.authorityInformationAccess(ocspURLs: [], caIssuerURLs: [issuers.url("/ca.cer")]))
            let leaf = try TestPKI.issue(profile, issuer: intermediate)

            let backend = OpenSSLTrustBackend()
            let identity = try backend.importIdentity(certificateChainPEM: Array(leaf.pem.utf8),
                                                      privateKeyPEM: Array(leaf.privateKey.pkcs8PEM.utf8), password: nil)
            let server = try LocalHTTPSServer(configuration: TLSServerConfiguration(identity: identity), backend: backend) { _ in
                (200, "hello from a leaf-only server\n")
            }
            defer { server.stop() }
            let url = "https://\(testHost):\(server.port)/"
            try withFixtures { files in
                let anchors = try files.pem("root.pem", [root])
                for name in try ToolRunner.backendNames(playing: "TLS") {
                    let plain = ["fetch", url, "--backend", name, "--anchors", anchors, "--connect-to", "127.0.0.1", "--timeout", "10"]
                    let refused = try ToolRunner.run(plain)
                    refused.expectExit(1, "\(name)")
                    #expect(refused.stderr.contains("unknownIssuer"), "\(name): \(refused)")

                    let fetched = try ToolRunner.run(plain + ["--allow-fetch"])
                    fetched.expectExit(0, "\(name)")
                    #expect(fetched.stdout.contains("hello from a leaf-only server"), "\(name): \(fetched)")
                }
            }
            // Each run is its own process, with its own cache: one request per --allow-fetch run.
            #expect(Set(issuers.requests.map(\.path)) == ["/ca.cer"], "\(issuers.requests.map(\.path))")
            #expect(issuers.requests.count == (try ToolRunner.backendNames(playing: "TLS")).count, "\(issuers.requests.map(\.path))")
        }
    }
}
