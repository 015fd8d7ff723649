import Dispatch
import Foundation
import TLSTrust
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// Live TLS on the mbedTLS 2.28 backend: its client against its server in memory, against
/// `openssl s_server`, `gnutls-serv` and nginx, its server against `openssl s_client`, and hostile
/// peers. mbedTLS 2.28 negotiates TLS 1.2 only.
@Suite("TLS on mbedTLS", .serialized)
struct TLSMbedTLSTests {
    static let backend = MbedTLSTrustBackend()
    static let timeouts = TLSTimeouts(connect: .seconds(3), handshake: .seconds(5), read: .seconds(5))
    static let host = "www.example.com"
    static let password = "mbedtls identity"

    // MARK: Helpers

    /// Runs blocking work (accept, a child process) off Swift's cooperative threads.
    static func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Mints a hierarchy (with the openssl command) off the cooperative threads: the handshakes'
    /// challenge handlers run there, and a blocked pool would time them out.
    static func make(keyAlgorithm: TestKeyAlgorithm = .ecdsaP256, leafDNSNames: [String] = ["www.example.com"]) async throws -> TestHierarchy {
        try await offload { try TestHierarchy.make(keyAlgorithm: keyAlgorithm, leafDNSNames: leafDNSNames) }
    }

    static func identity(_ pki: TestHierarchy) throws -> ClientIdentity {
        try backend.importIdentity(certificateChainPEM: Array([pki.leaf, pki.intermediate].pem.utf8),
                                   privateKeyPEM: TestPKI.privateKeyPEM(of: pki.leaf, password: nil), password: nil)
    }

    static func pkcs12Identity(_ pki: TestHierarchy) async throws -> ClientIdentity {
        let p12 = try await offload { try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: password) }
        return try backend.importPKCS12(p12, password: password)
    }

    static func clientConfiguration(trusting pki: TestHierarchy, serverName: String? = host) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(serverName: serverName)
        configuration.anchors = .only([pki.root.certificate])
        configuration.timeouts = timeouts
        return configuration
    }

    static func serverConfiguration(_ pki: TestHierarchy) throws -> TLSServerConfiguration {
        var configuration = TLSServerConfiguration(identity: try identity(pki))
        configuration.timeouts = timeouts
        return configuration
    }

    /// A client and a server of this backend over an in-memory pipe; both outcomes.
    static func handshake(client: TLSClientConfiguration, server: TLSServerConfiguration, host: String = host)
        async -> (client: Result<TLSConnection, any Error>, server: Result<TLSConnection, any Error>) {
        // Both sides on threads of their own (see TLSMatrixTests.handshake).
        await TLSMatrixTests.handshake(client: backend, clientConfiguration: client, server: backend, serverConfiguration: server, host: host)
    }

    static func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    static func tlsError(_ result: Result<TLSConnection, any Error>) -> TLSError? {
        guard case .failure(let error) = result else { return nil }
        return error as? TLSError
    }

    static func expectFailure(_ result: Result<TLSConnection, any Error>, _ codes: Set<String>,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        switch result {
        case .success(let connection):
            Issue.record("expected \(codes.sorted()), but the handshake succeeded", sourceLocation: sourceLocation)
            Task { await connection.close() }
        case .failure(let error):
            guard let error = error as? TLSError else {
                Issue.record("expected a TLSError, got \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(codes.contains(error.code.description), "\(error.code): \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Counts the challenges a handler was asked, answering each with default handling.
    final class ChallengeLog: Sendable {
        let asked = Locked<[TLSAuthenticationMethod]>([])
        let names = Locked<[DistinguishedName]?>(nil)

        var handler: ClosureChallengeHandler {
            TLSChallengeHandlers.closure { [self] challenge in
                asked.withLock { $0.append(challenge.protectionSpace.authenticationMethod) }
                if challenge.protectionSpace.authenticationMethod == .clientCertificate {
                    names.withLock { $0 = challenge.protectionSpace.distinguishedNames }
                }
                return .performDefaultHandling
            }
        }
    }

    // MARK: (1) Client and server of this backend

    @Test("mbedTLS client and server exchange data over TLS 1.2; the presented chain, version and ALPN are reported",
          arguments: [TestKeyAlgorithm.ecdsaP256, .rsa2048])
    func clientAndServerEchoInMemory(key: TestKeyAlgorithm) async throws {
        let pki = try await Self.make(keyAlgorithm: key, leafDNSNames: [Self.host])
        var client = Self.clientConfiguration(trusting: pki)
        client.applicationProtocols = ["h2", "http/1.1"]
        var server = try Self.serverConfiguration(pki)
        server.applicationProtocols = ["http/1.1"]
        let (clientResult, serverResult) = await Self.handshake(client: client, server: server)
        let connection = try clientResult.get()
        let serverConnection = try serverResult.get()

        #expect(connection.negotiatedVersion == .tls12)
        #expect(serverConnection.negotiatedVersion == .tls12)
        #expect(connection.negotiatedApplicationProtocol == "http/1.1")
        #expect(serverConnection.negotiatedApplicationProtocol == "http/1.1")
        #expect(connection.cipherSuite?.isEmpty == false)
        #expect(connection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        #expect(serverConnection.peerCertificates.isEmpty)
        #expect(connection.context.challenges == [.serverTrust])
        #expect(connection.context.evaluation?.isTrusted == true)
        #expect(!connection.isResumed && !serverConnection.isResumed)

        try await connection.write(Array("ping".utf8))
        let received = try await serverConnection.read()
        #expect(received == Array("ping".utf8))
        try await serverConnection.write(Array("pong: ".utf8) + received)
        #expect(try await connection.read() == Array("pong: ping".utf8))

        // More than one record each way, then close_notify reads as end of stream.
        let big = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await connection.write(big)
        await connection.close()
        #expect(try await serverConnection.readToEnd() == big)
        await serverConnection.close()
    }

    @Test("TLS 1.3 alone is .unsupported on mbedTLS 2.28, for clients and servers")
    func tls13AloneIsUnsupported() async throws {
        #expect(Self.backend.supportedTLSVersions == [.tls12])
        let pki = try await Self.make()
        var client = Self.clientConfiguration(trusting: pki)
        client.minimumVersion = .tls13
        var server = try Self.serverConfiguration(pki)
        server.minimumVersion = .tls13
        let (clientResult, serverResult) = await Self.handshake(client: client, server: server)
        Self.expectFailure(clientResult, ["unsupported"])
        Self.expectFailure(serverResult, ["unsupported"])
    }

    @Test("An identity imported by another backend is .invalidConfiguration")
    func identityOfAnotherBackendIsRefused() async throws {
        let pki = try await Self.make()
        let foreign = try OpenSSLTrustBackend().importPKCS12(
            TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: Self.password), password: Self.password)
        var client = Self.clientConfiguration(trusting: pki)
        client.identity = foreign
        let (clientSide, _) = MemoryTransport.makePair()
        #expect(throws: TLSError.self) {
            _ = try Self.backend.makeClientSession(configuration: client, context: TLSHandshakeContext(client: client, host: Self.host, port: 443, backend: Self.backend), transport: clientSide)
        }
        let server = TLSServerConfiguration(identity: foreign)
        do {
            _ = try Self.backend.makeServerSession(configuration: server, context: TLSHandshakeContext(server: server, port: 443, backend: Self.backend), transport: clientSide)
            Issue.record("a foreign server identity was accepted")
        } catch let error as TLSError {
            #expect(error.code == .invalidConfiguration)
        }
    }

    // MARK: (2) Refused servers

    @Test("A server whose chain is from another CA is refused during the handshake; the server sees the alert")
    func untrustedServerIsRefused() async throws {
        let pki = try await Self.make(leafDNSNames: [Self.host])
        let other = try await Self.make()
        let log = ChallengeLog()
        var client = Self.clientConfiguration(trusting: other)
        client.challengeHandler = log.handler
        let (clientResult, serverResult) = await Self.handshake(client: client, server: try Self.serverConfiguration(pki))
        Self.expectFailure(clientResult, ["peerTrustRefused"])
        #expect(Self.tlsError(clientResult)?.evaluation?.isTrusted == false)
        Self.expectFailure(serverResult, ["handshakeFailed", "connectionClosed"])
        #expect(Self.tlsError(serverResult)?.message.contains("bad_certificate") == true, "\(String(describing: Self.tlsError(serverResult)))")
        #expect(log.asked.withLock { $0 } == [.serverTrust])
    }

    @Test("A server whose certificate does not name the host is refused")
    func hostMismatchIsRefused() async throws {
        let pki = try await Self.make(leafDNSNames: [Self.host])
        let log = ChallengeLog()
        var client = Self.clientConfiguration(trusting: pki, serverName: "other.example.net")
        client.challengeHandler = log.handler
        let (clientResult, serverResult) = await Self.handshake(client: client, server: try Self.serverConfiguration(pki))
        Self.expectFailure(clientResult, ["peerTrustRefused"])
        #expect((Self.tlsError(clientResult)?.underlying as? TrustEvaluationError) != nil)
        Self.expectFailure(serverResult, ["handshakeFailed", "connectionClosed"])
        #expect(Self.tlsError(serverResult)?.message.contains("bad_certificate") == true, "\(String(describing: Self.tlsError(serverResult)))")
        #expect(log.asked.withLock { $0 } == [.serverTrust])
    }

    @Test("Over TCP too, a refused mbedTLS server reads the client's bad_certificate alert")
    func refusalOverTCP() async throws {
        let pki = try await Self.make(leafDNSNames: [Self.host])
        let other = try await Self.make()
        let listener = try TCPListener()
        defer { listener.close() }
        let server = try Self.serverConfiguration(pki)
        let serving = Task {
            let transport = try await Self.offload { try listener.accept(timeout: .seconds(5)) }
            return await Self.outcome { try await TLSConnection.accept(over: transport, configuration: server, backend: Self.backend) }
        }
        let clientResult = await Self.outcome {
            try await TLSConnection.connect(host: "127.0.0.1", port: listener.port,
                                            configuration: Self.clientConfiguration(trusting: other), backend: Self.backend)
        }
        Self.expectFailure(clientResult, ["peerTrustRefused"])
        let serverResult = try await serving.value
        Self.expectFailure(serverResult, ["handshakeFailed"])
        #expect(Self.tlsError(serverResult)?.message.contains("bad_certificate") == true, "\(String(describing: Self.tlsError(serverResult)))")
    }

    // MARK: (3) Pinning

    @Test("A public-key pin that does not match refuses the server with .publicKeyPinningFailed")
    func pinMismatchIsRefused() async throws {
        let pki = try await Self.make(leafDNSNames: [Self.host])
        let other = try await Self.make()
        var client = Self.clientConfiguration(trusting: pki)
        client.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([other.leaf.certificate.publicKey]))
        let (clientResult, serverResult) = await Self.handshake(client: client, server: try Self.serverConfiguration(pki))
        Self.expectFailure(clientResult, ["peerTrustRefused"])
        let reason = Self.tlsError(clientResult)?.underlying as? ServerTrustError
        #expect(reason?.code == .publicKeyPinningFailed, "\(String(describing: Self.tlsError(clientResult)))")
        Self.expectFailure(serverResult, ["handshakeFailed", "connectionClosed"])

        // The right pin is accepted.
        client.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([pki.leaf.certificate.publicKey]))
        let (accepted, served) = await Self.handshake(client: client, server: try Self.serverConfiguration(pki))
        let acceptedConnection = try accepted.get()
        let servedConnection = try served.get()
        await acceptedConnection.close()
        await servedConnection.close()
    }

    // MARK: (4) Mutual TLS

    @Test("Mutual TLS: a PKCS#12 client identity from the client CA is accepted; the CA names reach the handler",
          arguments: [TestKeyAlgorithm.ecdsaP256, .rsa2048])
    func mutualTLSSucceeds(key: TestKeyAlgorithm) async throws {
        let serverPKI = try await Self.make(keyAlgorithm: key, leafDNSNames: [Self.host])
        let clientPKI = try await Self.make(keyAlgorithm: key, leafDNSNames: ["client.example.com"])
        let log = ChallengeLog()
        var client = Self.clientConfiguration(trusting: serverPKI)
        client.identity = try await Self.pkcs12Identity(clientPKI)
        client.challengeHandler = log.handler
        var server = try Self.serverConfiguration(serverPKI)
        server.clientAuthentication = .required
        server.clientAnchors = .only([clientPKI.root.certificate])
        let (clientResult, serverResult) = await Self.handshake(client: client, server: server)
        let connection = try clientResult.get()
        let serverConnection = try serverResult.get()
        #expect(log.asked.withLock { $0 } == [.serverTrust, .clientCertificate])
        #expect(log.names.withLock { $0 } == [clientPKI.root.certificate.subject])
        #expect(connection.context.sentIdentity?.certificate == clientPKI.leaf.certificate)
        #expect(serverConnection.peerCertificates == [clientPKI.leaf.certificate, clientPKI.intermediate.certificate])
        #expect(serverConnection.context.challenges == [.clientTrust])
        #expect(serverConnection.context.evaluation?.isTrusted == true)
        try await connection.write(Array("hello".utf8))
        #expect(try await serverConnection.read() == Array("hello".utf8))
        await connection.close()
        await serverConnection.close()
    }

    @Test("Mutual TLS: a client without an identity is refused by a server that requires one")
    func mutualTLSWithoutIdentityFails() async throws {
        let serverPKI = try await Self.make(leafDNSNames: [Self.host])
        let clientPKI = try await Self.make()
        let log = ChallengeLog()
        var client = Self.clientConfiguration(trusting: serverPKI)
        client.challengeHandler = log.handler
        var server = try Self.serverConfiguration(serverPKI)
        server.clientAuthentication = .required
        server.clientAnchors = .only([clientPKI.root.certificate])
        let (clientResult, serverResult) = await Self.handshake(client: client, server: server)
        Self.expectFailure(serverResult, ["noPeerCertificate"])
        Self.expectFailure(clientResult, ["clientCertificateRejected", "connectionClosed", "handshakeFailed"])
        #expect(log.asked.withLock { $0 } == [.serverTrust, .clientCertificate])
    }

    @Test("Mutual TLS: a client certificate from another CA is refused; optional requests admit a client with none")
    func mutualTLSWithForeignCertificateFails() async throws {
        let serverPKI = try await Self.make(leafDNSNames: [Self.host])
        let clientPKI = try await Self.make()
        let strangerPKI = try await Self.make()
        var client = Self.clientConfiguration(trusting: serverPKI)
        client.identity = try await Self.pkcs12Identity(strangerPKI)
        var server = try Self.serverConfiguration(serverPKI)
        server.clientAuthentication = .required
        server.clientAnchors = .only([clientPKI.root.certificate])
        let (clientResult, serverResult) = await Self.handshake(client: client, server: server)
        Self.expectFailure(serverResult, ["peerTrustRefused"])
        Self.expectFailure(clientResult, ["clientCertificateRejected", "connectionClosed", "handshakeFailed"])

        // .optional: the stranger is still refused; no certificate at all is let in.
        server.clientAuthentication = .optional
        let (_, optionalStranger) = await Self.handshake(client: client, server: server)
        Self.expectFailure(optionalStranger, ["peerTrustRefused"])
        client.identity = nil
        let (anonymous, anonymousServed) = await Self.handshake(client: client, server: server)
        let served = try anonymousServed.get()
        #expect(served.peerCertificates.isEmpty)
        #expect(served.context.challenges.isEmpty)
        let anonymousConnection = try anonymous.get()
        await anonymousConnection.close()
        await served.close()
    }

    // MARK: (5) Interoperability

    static func get(_ port: Int, configuration: TLSClientConfiguration) async throws -> (TLSConnection, String) {
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: port, configuration: configuration, backend: backend)
        try await connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
        var reply: [UInt8] = []
        while true {
            do {
                let chunk = try await connection.read()
                if chunk.isEmpty { break }
                reply += chunk
            } catch let error as TLSError where error.code == .timedOut && !reply.isEmpty {
                break  // a server that keeps the connection open after its answer
            }
        }
        await connection.close()
        return (connection, String(decoding: reply, as: UTF8.self))
    }

    @Test("The mbedTLS client fetches from openssl s_server, gnutls-serv and nginx over TLS 1.2")
    func clientInteroperates() async throws {
        let pki = try await Self.make(keyAlgorithm: .rsa2048, leafDNSNames: [Self.host])
        let client = Self.clientConfiguration(trusting: pki)
        let peers: [(ExternalTLSPeer, String)] = try await Self.offload {
            [(try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: .tls12), "HTTP/1.0 200 ok"),
             (try ExternalTLSPeer.gnutlsServer(leaf: pki.leaf, chain: [pki.intermediate]), "HTTP/1.0 200 OK"),
             (try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello from nginx\n"), "hello from nginx")]
        }
        defer { peers.forEach { $0.0.stop() } }
        for (peer, expected) in peers {
            do {
                let (connection, reply) = try await Self.get(peer.port, configuration: client)
                #expect(reply.contains(expected), "\(peer.name): \(reply.prefix(200))")
                #expect(connection.negotiatedVersion == .tls12, "\(peer.name)")
                #expect(connection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate], "\(peer.name)")
            } catch {
                Issue.record("\(peer.name): \(error)\n\(peer.log)")
            }
        }
    }

    @Test("A TLS 1.3-only openssl s_server ends the handshake with .handshakeFailed (mbedTLS 2.28 has no TLS 1.3)")
    func tls13OnlyServerFails() async throws {
        let pki = try await Self.make(leafDNSNames: [Self.host])
        let peer = try await Self.offload { try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: .tls13) }
        defer { peer.stop() }
        do {
            _ = try await Self.get(peer.port, configuration: Self.clientConfiguration(trusting: pki))
            Issue.record("a TLS 1.3-only server was reached")
        } catch let error as TLSError {
            #expect(error.code == .handshakeFailed, "\(error)")
        }
    }

    @Test("Mutual TLS against openssl s_server and nginx: the PKCS#12 identity is sent; without it the server refuses")
    func mutualTLSInteroperates() async throws {
        let serverPKI = try await Self.make(leafDNSNames: [Self.host])
        let clientPKI = try await Self.make(keyAlgorithm: .rsa2048)
        let peers = try await Self.offload {
            [try ExternalTLSPeer.opensslServer(leaf: serverPKI.leaf, chain: [serverPKI.intermediate], version: .tls12,
                                               requireClientCertificate: true, clientCAs: [clientPKI.root]),
             try ExternalTLSPeer.nginx(leaf: serverPKI.leaf, chain: [serverPKI.intermediate],
                                       requireClientCertificate: true, clientCAs: [clientPKI.root])]
        }
        defer { peers.forEach { $0.stop() } }
        let log = ChallengeLog()
        var client = Self.clientConfiguration(trusting: serverPKI)
        client.identity = try await Self.pkcs12Identity(clientPKI)
        client.challengeHandler = log.handler
        for peer in peers {
            do {
                let (connection, reply) = try await Self.get(peer.port, configuration: client)
                #expect(reply.contains("200"), "\(peer.name): \(reply.prefix(300))")
                #expect(connection.context.sentIdentity != nil)
                #expect(log.names.withLock { $0 } == [clientPKI.root.certificate.subject], "\(peer.name)")
            } catch {
                Issue.record("\(peer.name): \(error)\n\(peer.log)")
            }
        }
        client.identity = nil
        client.challengeHandler = nil
        for peer in peers {
            do {
                let (_, reply) = try await Self.get(peer.port, configuration: client)
                // nginx answers a missing certificate with an HTTP 400 page instead of an alert.
                #expect(peer.name == "nginx" && reply.contains("400"), "\(peer.name) served a client without a certificate: \(reply.prefix(300))")
            } catch let error as TLSError {
                #expect([TLSError.Code.clientCertificateRejected, .handshakeFailed, .connectionClosed].contains(error.code), "\(error)")
            }
        }
    }

    @Test("The mbedTLS server serves openssl s_client, which verifies its chain")
    func serverInteroperatesWithOpenSSLClient() async throws {
        let pki = try await Self.make(keyAlgorithm: .ecdsaP256, leafDNSNames: [Self.host])
        let directory = try TemporaryDirectory(prefix: "tlstrust-mbedtls-s_client")
        let caFile = directory.file("ca.pem")
        try TestPKI.writePEM([pki.root], to: caFile)
        let listener = try TCPListener()
        defer { listener.close() }
        let server = try Self.serverConfiguration(pki)
        let port = listener.port

        let serving = Task {
            let transport = try await Self.offload { try listener.accept(timeout: .seconds(5)) }
            let connection = try await TLSConnection.accept(over: transport, configuration: server, port: port, backend: Self.backend)
            let line = try await connection.read()
            try await connection.write(Array("echo: ".utf8) + line)
            await connection.close()
            return connection.negotiatedVersion
        }
        let output: String = try await Self.offload {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-servername", Self.host,
                                 "-CAfile", caFile.path, "-verify_return_error", "-ign_eof"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            input.fileHandleForWriting.write(Data("hello mbedtls\n".utf8))
            try input.fileHandleForWriting.close()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            // SIGKILL: a process started from a Dispatch thread has SIGTERM blocked.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(try await serving.value == .tls12)
        #expect(output.contains("Verify return code: 0 (ok)"), "\(output)")
        #expect(output.contains("echo: hello mbedtls"), "\(output)")
    }

    // MARK: (6) Hostile peers

    /// A TCP server that accepts one connection and does `behave` with it, on its own thread.
    static func hostileServer(_ behave: @escaping @Sendable (TCPTransport) -> Void) throws -> TCPListener {
        let listener = try TCPListener()
        Thread {
            guard let transport = try? listener.accept(timeout: .seconds(5)) else { return }
            behave(transport)
            transport.close()
        }.start()
        return listener
    }

    static func connectToHostile(_ listener: TCPListener, handshake: Duration = .seconds(1)) async -> (TLSError?, Duration) {
        let pki = try! await make()
        let log = ChallengeLog()
        var client = clientConfiguration(trusting: pki)
        client.timeouts.handshake = handshake
        client.challengeHandler = log.handler
        let start = ContinuousClock.now
        do {
            let connection = try await TLSConnection.connect(host: "127.0.0.1", port: listener.port, configuration: client, backend: backend)
            Issue.record("a hostile server was trusted: \(connection.peerCertificates)")
            return (nil, start.duration(to: .now))
        } catch {
            #expect(log.asked.withLock { $0 }.isEmpty, "a challenge was raised for a hostile peer")
            return (error as? TLSError, start.duration(to: .now))
        }
    }

    @Test("A server that answers with garbage instead of a ServerHello is a protocol error")
    func garbageServer() async throws {
        let listener = try Self.hostileServer { transport in
            let garbage = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
            try? garbage.withUnsafeBytes { try transport.send($0, deadline: .now + .seconds(1)) }
            Thread.sleep(forTimeInterval: 1)
        }
        defer { listener.close() }
        let (error, elapsed) = await Self.connectToHostile(listener)
        #expect(error?.code == .protocolError || error?.code == .handshakeFailed, "\(String(describing: error))")
        #expect(elapsed < .seconds(3))
    }

    @Test("A server that closes right after accepting ends the handshake with .connectionClosed")
    func closingServer() async throws {
        let listener = try Self.hostileServer { _ in }
        defer { listener.close() }
        let (error, elapsed) = await Self.connectToHostile(listener)
        #expect(error?.code == .connectionClosed || error?.code == .handshakeFailed, "\(String(describing: error))")
        #expect(elapsed < .seconds(3))
    }

    @Test("A server that stalls is cut off by the handshake timeout")
    func stallingServer() async throws {
        let listener = try Self.hostileServer { _ in Thread.sleep(forTimeInterval: 4) }
        defer { listener.close() }
        let (error, elapsed) = await Self.connectToHostile(listener, handshake: .seconds(1))
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(900) && elapsed < .milliseconds(2500), "\(elapsed)")
    }

    @Test("A server that sends an empty Certificate message is refused as presenting no certificate")
    func serverWithoutCertificate() async throws {
        // A TLS 1.2 ServerHello (ECDHE-ECDSA-AES128-GCM-SHA256) followed by an empty Certificate.
        let listener = try Self.hostileServer { transport in
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = try? buffer.withUnsafeMutableBytes { try transport.receive(into: $0, deadline: .now + .seconds(2)) }
            var hello: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 7, count: 32) + [0x00, 0xC0, 0x2B, 0x00]
            hello = [0x02, 0x00, 0x00, UInt8(hello.count)] + hello
            let certificate: [UInt8] = [0x0B, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00]
            let body = hello + certificate
            let record: [UInt8] = [0x16, 0x03, 0x03, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
            try? record.withUnsafeBytes { try transport.send($0, deadline: .now + .seconds(1)) }
            Thread.sleep(forTimeInterval: 1)
        }
        defer { listener.close() }
        let (error, _) = await Self.connectToHostile(listener)
        #expect(error?.code == .noPeerCertificate || error?.code == .handshakeFailed, "\(String(describing: error))")
    }

    // MARK: (7) No resumption

    @Test("A second connection to the same openssl s_server is a full handshake with its own trust decision")
    func secondConnectionIsNotResumed() async throws {
        let pki = try await Self.make(leafDNSNames: [Self.host])
        let peer = try await Self.offload { try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: .tls12) }
        defer { peer.stop() }
        let log = ChallengeLog()
        var client = Self.clientConfiguration(trusting: pki)
        client.challengeHandler = log.handler
        for _ in 0..<2 {
            let (connection, reply) = try await Self.get(peer.port, configuration: client)
            #expect(reply.contains("200"))
            #expect(connection.isResumed == false)
            #expect(connection.context.challenges == [.serverTrust])
        }
        #expect(log.asked.withLock { $0 } == [.serverTrust, .serverTrust])
    }
}
