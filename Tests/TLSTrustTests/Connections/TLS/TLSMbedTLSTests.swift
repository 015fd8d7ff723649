import Dispatch
import Foundation
import TLSTrust
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// Live TLS on the mbedTLS 2.28 backend: what this library alone does (TLS 1.2 only; a refusal
/// over TCP), its client against `openssl s_server`, `gnutls-serv` and nginx, and its server against
/// `openssl s_client`. What every backend does (its client against its server, the trust decision
/// in the handshake, hostile servers) is in `TLSBackendTests` and `TLSHostilePeerTests`.
@Suite("TLS on mbedTLS: its own limits and real peers", .serialized)
struct TLSMbedTLSTests {
    static let backend = MbedTLSTrustBackend()
    static let timeouts = TestDeadlines.tls(read: .seconds(5))
    static let host = "www.example.com"
    static let password = "mbedtls identity"

    // MARK: Helpers

    /// Runs blocking work (accept, a child process) off Swift's cooperative threads.
    static func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await offThePool(body)
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

    // MARK: What mbedTLS 2.28 alone does

    @Test("TLS 1.3 alone is .unsupported on mbedTLS 2.28, for clients and servers")
    func tls13AloneIsUnsupported() async throws {
        #expect(Self.backend.supportedTLSVersions == [.tls12])
        let pki = try await Self.make()
        var client = Self.clientConfiguration(trusting: pki)
        client.minimumVersion = .tls13
        var server = try Self.serverConfiguration(pki)
        server.minimumVersion = .tls13
        let (clientResult, serverResult) = await TLSMatrixTests.handshake(
            client: Self.backend, clientConfiguration: client, server: Self.backend, serverConfiguration: server, host: Self.host)
        Self.expectFailure(clientResult, ["unsupported"])
        Self.expectFailure(serverResult, ["unsupported"])
    }

    @Test("Over TCP too, a refused mbedTLS server reads the client's bad_certificate alert")
    func refusalOverTCP() async throws {
        let pki = try await Self.make(leafDNSNames: [Self.host])
        let other = try await Self.make()
        let listener = try TCPListener()
        defer { listener.close() }
        let server = try Self.serverConfiguration(pki)
        // Accept and handshake in one hop on a thread of its own: between the two, a task would
        // wait for Swift's cooperative pool while the client's handshake clock runs.
        let serving = ThreadFuture { () -> Result<TLSConnection, any Error> in
            Result {
                let transport = try listener.accept(timeout: TestDeadlines.failureBound)
                return try TLSConnection.acceptBlocking(over: transport, configuration: server, backend: Self.backend)
            }
        }
        let clientResult = await Self.outcome {
            try await TLSConnection.connect(host: "127.0.0.1", port: listener.port,
                                            configuration: Self.clientConfiguration(trusting: other), backend: Self.backend)
        }
        Self.expectFailure(clientResult, ["peerTrustRefused"])
        let serverResult = await serving.value
        Self.expectFailure(serverResult, ["handshakeFailed"])
        #expect(Self.tlsError(serverResult)?.message.contains("bad_certificate") == true, "\(String(describing: Self.tlsError(serverResult)))")
    }

    // MARK: Interoperability

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
        let log = TLSBackendTests.Recorder()
        var client = Self.clientConfiguration(trusting: serverPKI)
        client.identity = try await Self.pkcs12Identity(clientPKI)
        client.challengeHandler = log
        for peer in peers {
            do {
                let (connection, reply) = try await Self.get(peer.port, configuration: client)
                #expect(reply.contains("200"), "\(peer.name): \(reply.prefix(300))")
                #expect(connection.context.sentIdentity != nil)
                #expect(log.clientCertificateSpace?.distinguishedNames == [clientPKI.root.certificate.subject], "\(peer.name)")
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
                // openssl s_server ends the handshake with an alert, which the client reads as its
                // certificate's refusal.
                #expect(peer.name != "nginx" && error.code == .clientCertificateRejected, "\(peer.name): \(error)")
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

        // The server on a thread of its own, with the blocking calls: it never waits for the
        // cooperative pool (busy with every other suite) while s_client's clock runs.
        let serving = ThreadFuture { () -> Result<TLSVersion?, any Error> in
            Result {
                let transport = try listener.accept(timeout: .seconds(30))
                let connection = try TLSConnection.acceptBlocking(over: transport, configuration: server, port: port, backend: Self.backend)
                defer { connection.closeBlocking() }
                let line = try connection.readBlocking()
                try connection.writeBlocking(Array("echo: ".utf8) + line)
                return connection.negotiatedVersion
            }
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
            ExternalTLSClient.write(Data("hello mbedtls\n".utf8), toStandardInput: input)
            try input.fileHandleForWriting.close()
            // s_client ends by itself once the server closes; the deadline only bounds a failure,
            // so it is generous for a loaded machine.
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            // SIGKILL: a process started from a Dispatch thread has SIGTERM blocked.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(try await serving.value.get() == .tls12)
        #expect(output.contains("Verify return code: 0 (ok)"), "\(output)")
        #expect(output.contains("echo: hello mbedtls"), "\(output)")
    }

    // MARK: No resumption

    @Test("A second connection to the same openssl s_server is a full handshake with its own trust decision")
    func secondConnectionIsNotResumed() async throws {
        let pki = try await Self.make(leafDNSNames: [Self.host])
        let peer = try await Self.offload { try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: .tls12) }
        defer { peer.stop() }
        let log = TLSBackendTests.Recorder()
        var client = Self.clientConfiguration(trusting: pki)
        client.challengeHandler = log
        for _ in 0..<2 {
            let (connection, reply) = try await Self.get(peer.port, configuration: client)
            #expect(reply.contains("200"))
            #expect(connection.isResumed == false)
            #expect(connection.context.challenges == [.serverTrust])
        }
        #expect(log.methods == [.serverTrust, .serverTrust])
    }
}
