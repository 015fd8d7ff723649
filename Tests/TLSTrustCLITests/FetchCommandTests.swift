import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// `tlstrust fetch` and `tlstrust inspect https://` against a real HTTPS server in this process
/// (on 127.0.0.1, an ephemeral port): exit statuses, explanations, escaping.
@Suite("tlstrust fetch and inspect https://")
struct FetchCommandTests {
    /// A server for `pki` on 127.0.0.1 whose body is `body`.
    static func server(_ pki: TestHierarchy, body: String = "hello from the origin\n",
                       requireClientFrom clientCA: TestCertificate? = nil) throws -> LocalHTTPSServer {
        let backend = OpenSSLTrustBackend()
        let identity = try backend.importIdentity(certificateChainPEM: Array((pki.leaf.pem + pki.intermediate.pem).utf8),
                                                  privateKeyPEM: Array(pki.leaf.privateKey.pkcs8PEM.utf8), password: nil)
        var configuration = TLSServerConfiguration(identity: identity)
        if let clientCA {
            configuration.clientAuthentication = .required
            configuration.clientAnchors = .only([clientCA.certificate])
        }
        return try LocalHTTPSServer(configuration: configuration, backend: backend) { request in
            (200, body + (request.clientCertificates.first.map { "client: \($0.subject)\n" } ?? ""))
        }
    }

    /// Runs `body` with a server for `pki` (``server(_:body:requireClientFrom:)``), a fixtures
    /// directory, and the path of `pki`'s root written there: the `--anchors` that trust the server.
    static func withServer(_ pki: TestHierarchy, body: String = "hello from the origin\n", requireClientFrom clientCA: TestCertificate? = nil,
                           _ run: (_ server: LocalHTTPSServer, _ files: Fixtures, _ anchors: String) throws -> Void) throws {
        let server = try Self.server(pki, body: body, requireClientFrom: clientCA)
        defer { server.stop() }
        try withFixtures { files in try run(server, files, try files.pem("root.pem", [pki.root])) }
    }

    static func url(_ server: LocalHTTPSServer) -> String { "https://\(testHost):\(server.port)/status" }

    @Test("--json: fetch and inspect https:// print the documented object; a refused server, the error document with a pin failure's chain pins")
    func json() throws {
        let pki = try TestHierarchy.make()
        try Self.withServer(pki) { server, files, anchors in
            let common = ["--anchors", anchors, "--connect-to", "127.0.0.1", "--timeout", "5", "--json"]
            let fetched = try ToolRunner.run(["fetch", Self.url(server)] + common)
            fetched.expectExit(0)
            let document = try fetched.documentedJSON("tlstrust fetch --json")
            #expect(document["statusCode"] as? Int == 200 && document["body"] as? String == "hello from the origin\n", "\(fetched)")
            #expect((document["chain"] as? [[String: Any]])?.first?["publicKeyPin"] as? String == pki.leaf.certificate.publicKey.pin, "\(fetched)")

            let inspected = try ToolRunner.run(["inspect", Self.url(server)] + common)
            inspected.expectExit(0)
            let items = try #require(try inspected.documentedJSON("tlstrust inspect --json")["items"] as? [[String: Any]])
            let live = try #require(items.first?["server"] as? [String: Any], "\(inspected)")
            #expect(items.first?["kind"] as? String == "server" && live["trusted"] as? Bool == true, "\(inspected)")
            #expect((live["presented"] as? [[String: Any]])?.count == 2, "\(inspected)")

            let other = try TestHierarchy.make().leaf.certificate.publicKey.pin
            let refused = try ToolRunner.run(["fetch", Self.url(server), "--pin", other] + common)
            refused.expectExit(1)
            let error = try #require(try refused.documentedJSON("error")["error"] as? [String: Any], "\(refused)")
            #expect(error["exitStatus"] as? Int == 1, "\(refused)")
            // The pins of the validated chain, to fix the pin with (OkHttp's answer).
            #expect((error["message"] as? String)?.contains(pki.intermediate.certificate.publicKey.pin) == true, "\(refused)")
            #expect(refused.stderr.contains("the validated chain's pins: \(pki.leaf.certificate.publicKey.pin)"), "\(refused)")
        }
    }

    @Test("A trusted server: 200 and the body on stdout, exit 0, on every backend")
    func fetchTrusted() throws {
        let pki = try TestHierarchy.make()
        try Self.withServer(pki) { server, files, anchors in
            for backend in try ToolRunner.backendNames(playing: "TLS") {
                let result = try ToolRunner.run(["fetch", Self.url(server), "--backend", backend, "--anchors", anchors,
                                                 "--connect-to", "127.0.0.1", "--timeout", "5"])
                result.expectExit(0, "\(backend)")
                #expect(result.stdout.hasPrefix("200 OK"), "\(result)")
                #expect(result.stdout.contains("hello from the origin"), "\(result)")
                #expect(result.stderr.contains("trusted:"), "\(result)")
            }
        }
    }

    @Test("A server from another CA: exit 1 and the reason; a pin mismatch: exit 1 naming the pin failure")
    func fetchRefused() throws {
        let pki = try TestHierarchy.make()
        let other = try TestHierarchy.make()
        let server = try Self.server(pki)
        defer { server.stop() }
        try withFixtures { files in
            let wrong = try files.pem("other.pem", [other.root])
            let refused = try ToolRunner.run(["fetch", Self.url(server), "--anchors", wrong, "--connect-to", "127.0.0.1", "--timeout", "5"])
            refused.expectExit(1)
            #expect(refused.stdout.isEmpty, "nothing fetched from a refused server\n\(refused)")
            #expect(refused.stderr.contains("peerTrustRefused"), "\(refused)")
            #expect(refused.stderr.contains("unknownIssuer"), "\(refused)")

            let anchors = try files.pem("root.pem", [pki.root])
            let pinned = try ToolRunner.run(["fetch", Self.url(server), "--anchors", anchors, "--connect-to", "127.0.0.1",
                                             "--pin", other.leaf.certificate.publicKey.pin, "--timeout", "5"])
            pinned.expectExit(1)
            #expect(pinned.stderr.lowercased().contains("pin"), "\(pinned)")

            let pinnedOK = try ToolRunner.run(["fetch", Self.url(server), "--anchors", anchors, "--connect-to", "127.0.0.1",
                                               "--pin", pki.intermediate.certificate.publicKey.pin, "--timeout", "5"])
            pinnedOK.expectExit(0)
        }
    }

    @Test("Mutual TLS with --identity FILE.p12 --password-file; a wrong password is exit 2")
    func fetchWithIdentity() throws {
        let pki = try TestHierarchy.make()
        let clients = try TestHierarchy.make(leafDNSNames: ["client.example.com"]) { _ in } customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] }
        try Self.withServer(pki, requireClientFrom: clients.root) { server, files, anchors in
            let p12 = try files.bytes("client.p12", try TestPKI.pkcs12(leaf: clients.leaf, chain: [clients.intermediate], password: "s3cret"))
            let password = try files.text("password.txt", "s3cret\n")
            let ok = try ToolRunner.run(["fetch", Self.url(server), "--anchors", anchors, "--connect-to", "127.0.0.1",
                                         "--identity", p12, "--password-file", password, "--timeout", "5"])
            ok.expectExit(0)
            #expect(ok.stdout.contains("client: "), "\(ok)")

            let without = try ToolRunner.run(["fetch", Self.url(server), "--anchors", anchors, "--connect-to", "127.0.0.1", "--timeout", "5"])
            #expect(without.status != 0, "\(without)")

            let wrong = try files.text("wrong.txt", "nope\n")
            let bad = try ToolRunner.run(["fetch", Self.url(server), "--anchors", anchors, "--identity", p12, "--password-file", wrong])
            bad.expectExit(2)
            #expect(bad.stderr.contains("password"), "\(bad)")
        }
    }

    @Test("Bad usage is exit 2; a closed port is exit 3 with a connection error")
    func fetchErrors() throws {
        for arguments in [["fetch", "http://example.com/"], ["fetch", "https://example.com/", "--backend", "nosuch"],
                          ["fetch", "https://example.com/", "--tls-version", "1.1"], ["fetch", "https://example.com/", "--timeout", "0"],
                          ["fetch", "https://example.com/", "--identity", "x.p12"]] {
            let result = try ToolRunner.run(arguments)
            result.expectExit(2, "\(arguments)")
            #expect(result.stderr.hasPrefix("tlstrust: "), "\(result)")
        }
        let listener = try TCPListener()
        let port = listener.port
        listener.close()
        let closed = try ToolRunner.run(["fetch", "https://127.0.0.1:\(port)/", "--timeout", "3"])
        closed.expectExit(3)
        #expect(closed.stderr.contains("connectFailed"), "\(closed)")
    }

    @Test("A server whose body and certificate subject carry terminal escapes cannot act on the terminal")
    func escapes() throws {
        let evil = "\u{1B}]0;pwned\u{07}\u{1B}[2J"
        let pki = try TestHierarchy.make { _ in } customizeLeaf: { $0.organization = "Evil\(evil)Corp" }
        try Self.withServer(pki, body: "body\(evil)end\n") { server, files, anchors in
            let fetched = try ToolRunner.run(["fetch", Self.url(server), "--anchors", anchors, "--connect-to", "127.0.0.1", "--timeout", "5"])
            fetched.expectExit(0)
            let inspected = try ToolRunner.run(["inspect", Self.url(server), "--anchors", anchors, "--connect-to", "127.0.0.1", "--timeout", "5"])
            inspected.expectExit(0)
            for result in [fetched, inspected] {
                #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"), "\(result)")
                #expect(!result.stdout.contains("\u{07}"), "\(result)")
            }
            #expect(fetched.stdout.contains("body\\x1B]0;pwned\\x07"), "\(fetched)")
            #expect(inspected.stdout.contains("Evil\\x1B"), "\(inspected)")
        }
    }

    @Test("inspect https:// shows the presented chain, the built chain and each pin; an untrusted one says why")
    func inspectLive() throws {
        let pki = try TestHierarchy.make()
        try Self.withServer(pki) { server, files, anchors in
            let result = try ToolRunner.run(["inspect", Self.url(server), "--anchors", anchors, "--connect-to", "127.0.0.1", "--timeout", "5"])
            result.expectExit(0)
            #expect(result.stdout.contains("2 certificate(s) presented"), "\(result)")
            #expect(result.stdout.contains("presented #0 (leaf)"))
            #expect(result.stdout.contains(pki.leaf.certificate.publicKey.pin))
            #expect(result.stdout.contains("built chain"))
            #expect(result.stdout.contains(pki.root.certificate.publicKey.pin), "the built chain ends at the anchor\n\(result)")

            let untrusted = try ToolRunner.run(["inspect", Self.url(server), "--connect-to", "127.0.0.1", "--timeout", "5"])
            untrusted.expectExit(0)
            #expect(untrusted.stdout.contains("not trusted"), "\(untrusted)")
            #expect(untrusted.stdout.contains("unknownIssuer"), "\(untrusted)")
        }
    }
}
