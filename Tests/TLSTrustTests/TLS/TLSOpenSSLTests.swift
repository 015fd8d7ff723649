import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// Live TLS on the OpenSSL 3 backend: its client against its server in memory, the trust decision
/// inside the handshake (refusals, pins, mutual TLS), real peers (openssl s_server and s_client,
/// gnutls-serv, nginx) over TCP, and hostile servers.
@Suite("TLS on OpenSSL")
struct TLSOpenSSLTests {
    let backend = OpenSSLTrustBackend()
    static let timeouts = TLSTimeouts(connect: .seconds(3), handshake: .seconds(5), read: .seconds(5))
    static let password = "correct horse"
    static let keyedVersions: [(TLSVersion, TestKeyAlgorithm)] = [TLSVersion.tls12, .tls13].flatMap { v in
        [TestKeyAlgorithm.rsa2048, .ecdsaP256].map { (v, $0) }
    }

    // MARK: Helpers

    /// A fresh hierarchy, minted off Swift's cooperative pool: key generation is CPU work that
    /// would otherwise hold up the handshakes of tests running in parallel.
    static func pki(keyAlgorithm: TestKeyAlgorithm = .ecdsaP256, leafDNSNames: [String] = ["www.example.com"]) async throws -> TestHierarchy {
        try await blocking { try TestHierarchy.make(keyAlgorithm: keyAlgorithm, leafDNSNames: leafDNSNames) }
    }

    func serverConfiguration(_ pki: TestHierarchy, version: TLSVersion? = nil) async throws -> TLSServerConfiguration {
        let backend = backend
        let identity = try await Self.blocking {
            try backend.importIdentity(certificateChainPEM: Array([pki.leaf, pki.intermediate].pem.utf8),
                                       privateKeyPEM: TestPKI.privateKeyPEM(of: pki.leaf, password: nil), password: nil)
        }
        var configuration = TLSServerConfiguration(identity: identity)
        if let version { configuration.minimumVersion = version; configuration.maximumVersion = version }
        configuration.timeouts = Self.timeouts
        return configuration
    }

    func clientConfiguration(_ pki: TestHierarchy, serverName: String = "www.example.com", version: TLSVersion? = nil) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(serverName: serverName)
        configuration.anchors = .only([pki.root.certificate])
        if let version { configuration.minimumVersion = version; configuration.maximumVersion = version }
        configuration.timeouts = Self.timeouts
        return configuration
    }

    /// The leaf and intermediate of `pki` as a PKCS#12 file (made by `openssl pkcs12`), imported.
    func clientIdentity(_ pki: TestHierarchy) async throws -> ClientIdentity {
        let backend = backend
        return try await Self.blocking {
            let p12 = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: Self.password)
            return try backend.importPKCS12(p12, password: Self.password)
        }
    }

    /// Runs our client against our server over an in-memory pipe; both results come back.
    func handshake(client: TLSClientConfiguration, server: TLSServerConfiguration) async
        -> (client: Result<TLSConnection, any Error>, server: Result<TLSConnection, any Error>) {
        // Both sides on threads of their own (see TLSMatrixTests.handshake).
        await TLSMatrixTests.handshake(client: backend, clientConfiguration: client, server: backend, serverConfiguration: server, host: "localhost")
    }

    static func capture(_ body: () async throws -> TLSConnection) async -> Result<TLSConnection, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Runs blocking work (key generation, accept, waiting for a process) on a thread of its own,
    /// off Swift's cooperative pool, which the connections' challenge handlers need.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Runs `body` with a started peer and stops the peer afterwards, whatever happens; starting
    /// and stopping (which waits for the process) happen off the cooperative pool.
    static func withPeer(_ start: @escaping @Sendable () throws -> ExternalTLSPeer,
                         _ body: (ExternalTLSPeer) async throws -> Void) async throws {
        let peer = try await blocking(start)
        let outcome: Result<Void, any Error>
        do { outcome = .success(try await body(peer)) } catch { outcome = .failure(error) }
        _ = try? await blocking { peer.stop() }
        try outcome.get()
    }

    static func code(of result: Result<TLSConnection, any Error>) -> TLSError.Code? {
        guard case .failure(let error) = result else { return nil }
        return (error as? TLSError)?.code
    }

    /// A handler that counts the challenges it is asked and answers with default handling (or
    /// with `identity` for a client-certificate challenge).
    final class CountingHandler: TLSChallengeHandler {
        let calls = Locked<[TLSAuthenticationMethod]>([])
        let names = Locked<[DistinguishedName]?>(nil)
        let identity: ClientIdentity?
        init(identity: ClientIdentity? = nil) { self.identity = identity }
        var methods: [TLSAuthenticationMethod] { calls.withLock { $0 } }
        func handle(_ challenge: TLSAuthenticationChallenge) async -> TLSChallengeResponse {
            calls.withLock { $0.append(challenge.protectionSpace.authenticationMethod) }
            if challenge.protectionSpace.authenticationMethod == .clientCertificate {
                names.withLock { $0 = challenge.protectionSpace.distinguishedNames }
                if let identity { return .useCredential(.identity(identity)) }
            }
            return .performDefaultHandling
        }
    }

    // MARK: (1) Our client and our server

    @Test("Client and server echo data over memory, with the version asked and the chain as presented", arguments: keyedVersions)
    func echoOverMemory(version: TLSVersion, key: TestKeyAlgorithm) async throws {
        let pki = try await Self.pki(keyAlgorithm: key)
        var client = clientConfiguration(pki, version: version)
        client.applicationProtocols = ["h2", "http/1.1"]
        var server = try await serverConfiguration(pki)
        server.applicationProtocols = ["http/1.1"]
        let (c, s) = await handshake(client: client, server: server)
        let clientConnection = try c.get()
        let serverConnection = try s.get()
        #expect(clientConnection.negotiatedVersion == version)
        #expect(serverConnection.negotiatedVersion == version)
        #expect(clientConnection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        #expect(serverConnection.peerCertificates.isEmpty)
        #expect(clientConnection.negotiatedApplicationProtocol == "http/1.1")
        #expect(clientConnection.cipherSuite != nil)
        #expect(clientConnection.isResumed == false)
        #expect(clientConnection.context.challenges == [.serverTrust])
        #expect(clientConnection.context.evaluation?.isTrusted == true)

        try await clientConnection.write(Array("ping over \(version)".utf8))
        let received = try await serverConnection.read()
        try await serverConnection.write(received)
        let echoed = try await clientConnection.read()
        #expect(String(decoding: echoed, as: UTF8.self) == "ping over \(version)")

        await serverConnection.close()
        #expect(try await clientConnection.read().isEmpty)  // close_notify reads as end of stream
        await clientConnection.close()
    }

    @Test("A version range the peer does not share fails the handshake, and a bad range is refused up front")
    func versionRange() async throws {
        let pki = try await Self.pki()
        let (c, s) = await handshake(client: clientConfiguration(pki, version: .tls12), server: try await serverConfiguration(pki, version: .tls13))
        #expect(Self.code(of: c) == .handshakeFailed)
        #expect(Self.code(of: s) == .handshakeFailed)
        var bad = clientConfiguration(pki)
        bad.minimumVersion = .tls13
        bad.maximumVersion = .tls12
        let (c2, _) = await handshake(client: bad, server: try await serverConfiguration(pki))
        #expect(Self.code(of: c2) == .invalidConfiguration)
    }

    @Test("An identity imported by another backend (GnuTLS) is .invalidConfiguration")
    func foreignIdentity() async throws {
        let pki = try await Self.pki()
        let foreign = try await Self.blocking {
            let p12 = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: Self.password)
            return try GnuTLSTrustBackend().importPKCS12(p12, password: Self.password)
        }
        let (_, s) = await handshake(client: clientConfiguration(pki), server: TLSServerConfiguration(identity: foreign))
        #expect(Self.code(of: s) == .invalidConfiguration)
        var client = clientConfiguration(pki)
        client.identity = foreign
        let (c, _) = await handshake(client: client, server: try await serverConfiguration(pki))
        #expect(Self.code(of: c) == .invalidConfiguration)
    }

    // MARK: (2) Refused servers

    @Test("A server from a CA not in the anchors, or for another host, is refused in the handshake", arguments: [TLSVersion.tls12, .tls13])
    func refusedServer(version: TLSVersion) async throws {
        let pki = try await Self.pki()
        let stranger = try await Self.pki()
        for (client, what) in [(clientConfiguration(stranger, version: version), "unknown CA"),
                               (clientConfiguration(pki, serverName: "other.example.com", version: version), "wrong host")] {
            var client = client
            let handler = CountingHandler()
            client.challengeHandler = handler
            let (c, s) = await handshake(client: client, server: try await serverConfiguration(pki))
            #expect(Self.code(of: c) == .peerTrustRefused, "\(what): \(c)")
            #expect(handler.methods == [.serverTrust], "\(what)")
            guard case .failure(let serverError) = s else { Issue.record("\(what): the server completed its handshake"); continue }
            #expect("\(serverError)".contains("bad certificate"), "\(what): the server saw \(serverError)")
        }
    }

    // MARK: (3) Pins

    @Test("A public-key pin for another key refuses the server with .publicKeyPinningFailed")
    func pinRefusal() async throws {
        let pki = try await Self.pki()
        let other = try await Self.pki()
        var client = clientConfiguration(pki)
        client.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([other.leaf.certificate.publicKey, other.root.certificate.publicKey]))
        let (c, s) = await handshake(client: client, server: try await serverConfiguration(pki))
        guard case .failure(let error as TLSError) = c else { Issue.record("expected a TLSError, got \(c)"); return }
        #expect(error.code == .peerTrustRefused)
        #expect((error.underlying as? ServerTrustError)?.code == .publicKeyPinningFailed, "\(error)")
        #expect(Self.code(of: s) != nil)

        // The right pin is accepted.
        client.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([pki.leaf.certificate.publicKey]))
        let (ok, _) = await handshake(client: client, server: try await serverConfiguration(pki))
        #expect(throws: Never.self) { try ok.get() }
    }

    // MARK: (4) Mutual TLS

    @Test("Mutual TLS: a PKCS#12 identity from the client CA is accepted; none, or one from another CA, is refused", arguments: [TLSVersion.tls12, .tls13])
    func mutualTLS(version: TLSVersion) async throws {
        let pki = try await Self.pki()
        let clientPKI = try await Self.pki(keyAlgorithm: .rsa2048, leafDNSNames: ["client.example.com"])
        let strangerPKI = try await Self.pki(leafDNSNames: ["client.example.com"])
        var server = try await serverConfiguration(pki, version: version)
        server.clientAuthentication = .required
        server.clientAnchors = .only([clientPKI.root.certificate])

        // Accepted: the handler is asked for a certificate and told the acceptable CA.
        var client = clientConfiguration(pki)
        let handler = CountingHandler(identity: try await clientIdentity(clientPKI))
        client.challengeHandler = handler
        let (c, s) = await handshake(client: client, server: server)
        let clientConnection = try c.get()
        let serverConnection = try s.get()
        #expect(handler.methods == [.serverTrust, .clientCertificate])
        #expect(handler.names.withLock { $0 } == [clientPKI.root.certificate.subject])
        #expect(serverConnection.peerCertificates == [clientPKI.leaf.certificate, clientPKI.intermediate.certificate])
        #expect(serverConnection.context.challenges == [.clientTrust])
        try await clientConnection.write(Array("hello".utf8))
        #expect(try await serverConnection.read() == Array("hello".utf8))
        await clientConnection.close()
        await serverConnection.close()

        // No identity: the server refuses (TLS 1.3 clients learn it on their first read).
        let (c2, s2) = await handshake(client: clientConfiguration(pki), server: server)
        #expect(Self.code(of: s2) == .noPeerCertificate)
        let noIdentityError = await Self.failureOnUse(c2)
        #expect(noIdentityError?.code == .clientCertificateRejected, "\(String(describing: noIdentityError))")

        // A certificate from another CA: refused by the server's trust decision.
        var stranger = clientConfiguration(pki)
        stranger.identity = try await clientIdentity(strangerPKI)
        let (c3, s3) = await handshake(client: stranger, server: server)
        #expect(Self.code(of: s3) == .peerTrustRefused)
        let strangerError = await Self.failureOnUse(c3)
        #expect(strangerError?.code == .clientCertificateRejected, "\(String(describing: strangerError))")
    }

    @Test("Optional client authentication accepts a client without a certificate")
    func optionalClientAuthentication() async throws {
        let pki = try await Self.pki()
        var server = try await serverConfiguration(pki)
        server.clientAuthentication = .optional
        server.clientAnchors = .only([pki.root.certificate])
        let (c, s) = await handshake(client: clientConfiguration(pki), server: server)
        _ = try c.get()
        let serverConnection = try s.get()
        #expect(serverConnection.peerCertificates.isEmpty)
        #expect(serverConnection.context.challenges.isEmpty)
    }

    /// The error a client sees from its handshake or, failing that, from its first read (TLS 1.3
    /// clients finish before the server has judged their certificate; the refusal is the alert
    /// that read finds). Nil when the server let it through.
    static func failureOnUse(_ result: Result<TLSConnection, any Error>) async -> TLSError? {
        let connection: TLSConnection
        do { connection = try result.get() } catch { return error as? TLSError ?? TLSError(.handshakeFailed, "\(error)") }
        do {
            _ = try await connection.read()
            await connection.close()
            return nil
        } catch {
            await connection.close()
            return error as? TLSError ?? TLSError(.handshakeFailed, "\(error)")
        }
    }

    // MARK: (5) Real peers over TCP

    func get(_ port: Int, _ client: TLSClientConfiguration) async throws -> (TLSConnection, String) {
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: port, configuration: client, backend: backend)
        try await connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
        let reply = String(decoding: try await connection.readToEnd(limit: 1 << 20), as: UTF8.self)
        await connection.close()
        return (connection, reply)
    }

    @Test("Our client against openssl s_server", arguments: [TLSVersion.tls12, .tls13])
    func clientAgainstOpenSSLServer(version: TLSVersion) async throws {
        let pki = try await Self.pki()
        try await Self.withPeer({ try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version) }) { peer in
            let (connection, reply) = try await get(peer.port, clientConfiguration(pki))
            #expect(connection.negotiatedVersion == version)
            #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
            #expect(connection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        }
    }

    @Test("Our client against gnutls-serv and nginx")
    func clientAgainstGnuTLSAndNginx() async throws {
        let pki = try await Self.pki(keyAlgorithm: .rsa2048)
        try await Self.withPeer({ try ExternalTLSPeer.gnutlsServer(leaf: pki.leaf, chain: [pki.intermediate]) }) { gnutls in
            let (g, reply) = try await get(gnutls.port, clientConfiguration(pki))
            #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
            #expect(g.negotiatedVersion == .tls13)
        }
        try await Self.withPeer({ try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello from nginx\n") }) { nginx in
            let (n, reply) = try await get(nginx.port, clientConfiguration(pki))
            #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
            #expect(reply.hasSuffix("hello from nginx\n"))
            #expect(n.peerCertificates.count == 2)
        }
    }

    @Test("Mutual TLS against openssl s_server -Verify and nginx ssl_verify_client on")
    func mutualTLSAgainstRealServers() async throws {
        let pki = try await Self.pki()
        let clientPKI = try await Self.pki(leafDNSNames: ["client.example.com"])
        let identity = try await clientIdentity(clientPKI)

        try await Self.withPeer({
            try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], requireClientCertificate: true, clientCAs: [clientPKI.root])
        }) { sServer in
            var client = clientConfiguration(pki)
            let handler = CountingHandler(identity: identity)
            client.challengeHandler = handler
            let (_, reply) = try await get(sServer.port, client)
            #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(300))")
            #expect(handler.methods == [.serverTrust, .clientCertificate])
            #expect(handler.names.withLock { $0 } == [clientPKI.root.certificate.subject])

            // Without an identity s_server ends the handshake.
            let backend = backend
            let error = await Self.failureOnUse(await Self.capture {
                try await TLSConnection.connect(host: "127.0.0.1", port: sServer.port, configuration: clientConfiguration(pki), backend: backend)
            })
            #expect(error?.code == .clientCertificateRejected, "\(String(describing: error))")
        }
        try await Self.withPeer({
            try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello, client\n", requireClientCertificate: true, clientCAs: [clientPKI.root])
        }) { nginx in
            var withIdentity = clientConfiguration(pki)
            withIdentity.identity = identity
            let (_, reply) = try await get(nginx.port, withIdentity)
            #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(300))")
            #expect(reply.hasSuffix("hello, client\n"))
        }
    }

    @Test("Our server against openssl s_client", arguments: [TLSVersion.tls12, .tls13])
    func serverAgainstOpenSSLClient(version: TLSVersion) async throws {
        let pki = try await Self.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-s_client")
        try TestPKI.writePEM([pki.root], to: directory.file("root.pem"))
        let listener = try TCPListener()
        defer { listener.close() }
        let configuration = try await serverConfiguration(pki)
        let backend = backend

        let server = Task {
            let transport = try await Self.blocking { try listener.accept(timeout: .seconds(10)) }
            let connection = try await TLSConnection.accept(over: transport, configuration: configuration, port: listener.port, backend: backend)
            var line: [UInt8] = []
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = try await connection.read()
                if chunk.isEmpty { break }
                line += chunk
            }
            try await connection.write(Array("echo: ".utf8) + line)
            await connection.close()
            return connection.negotiatedVersion
        }

        let output = try await Self.blocking { () throws -> String in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl", "s_client", "-connect", "127.0.0.1:\(listener.port)", "-servername", "www.example.com",
                                 "-CAfile", directory.file("root.pem").path, "-verify_return_error", "-ign_eof",
                                 version == .tls13 ? "-tls1_3" : "-tls1_2"]
            let input = Pipe()
            let outputFile = directory.file("s_client.out")
            _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
            let out = try FileHandle(forWritingTo: outputFile)
            process.standardInput = input
            process.standardOutput = out
            process.standardError = out
            try process.run()
            input.fileHandleForWriting.write(Data("hello from s_client\n".utf8))
            try input.fileHandleForWriting.close()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
            try out.close()
            return try String(contentsOf: outputFile, encoding: .utf8)
        }
        #expect(output.contains("Verify return code: 0 (ok)"), "\(output)")
        #expect(output.contains("echo: hello from s_client"), "\(output)")
        #expect(try await server.value == version)
    }

    // MARK: (6) Hostile servers

    enum Hostility: String, CaseIterable, Sendable { case garbage, closes, stalls }

    @Test("A server that sends garbage, closes at once, or stalls gets a specific error in time, never trust", arguments: Hostility.allCases)
    func hostileServer(_ hostility: Hostility) async throws {
        let pki = try await Self.pki()
        let listener = try TCPListener()
        defer { listener.close() }
        let held = Locked<TCPTransport?>(nil)
        let peer = ThreadFuture { () -> Result<Void, any Error> in Result {
            let transport = try listener.accept(timeout: .seconds(5))
            switch hostility {
            case .garbage:
                let junk = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8) + (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
                try junk.withUnsafeBytes { try transport.send($0, deadline: .now + .seconds(2)) }
                held.withLock { $0 = transport }
            case .closes:
                transport.close()
            case .stalls:
                held.withLock { $0 = transport }
            }
        } }
        var client = clientConfiguration(pki)
        client.timeouts = TLSTimeouts(connect: .seconds(2), handshake: .seconds(1), read: .seconds(1))
        let handler = CountingHandler()
        client.challengeHandler = handler
        let backend = backend, port = listener.port, configuration = client
        // Connected and timed on a thread of its own: the time measured is the connection's.
        let (result, elapsed) = await TLSMatrixTests.onThread { () -> (Result<TLSConnection, any Error>, Duration) in
            let start = ContinuousClock.now
            let result = Result { try TLSConnection.connectBlocking(host: "127.0.0.1", port: port, configuration: configuration, backend: backend) }
            return (result, ContinuousClock.now - start)
        }
        try await peer.value.get()
        held.withLock { $0?.close() }

        let code = Self.code(of: result)
        switch hostility {
        case .garbage: #expect(code == .protocolError, "\(result)")
        case .closes: #expect(code == .connectionClosed, "\(result)")
        case .stalls: #expect(code == .timedOut, "\(result)")
        }
        #expect(elapsed < .seconds(3))
        #expect(handler.methods.isEmpty)
    }

    // MARK: (7) No resumption

    @Test("A second connection to the same openssl s_server is not resumed and is judged again")
    func noResumption() async throws {
        let pki = try await Self.pki()
        var client = clientConfiguration(pki)
        let handler = CountingHandler()
        client.challengeHandler = handler
        try await Self.withPeer({ try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: .tls12) }) { peer in
            for _ in 0..<2 {
                let (connection, reply) = try await get(peer.port, client)
                #expect(connection.isResumed == false)
                #expect(!reply.contains("Reused, "), "\(reply.prefix(600))")
            }
        }
        #expect(handler.methods == [.serverTrust, .serverTrust])
    }
}
