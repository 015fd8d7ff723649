import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustTesting
import Testing

/// Live TLS on the GnuTLS backend: its client against its server in memory, refusals decided by the
/// core during the handshake, mutual TLS with PKCS#12 identities, real peers (openssl s_server and
/// s_client, gnutls-serv, nginx) on 127.0.0.1, and hostile servers.
@Suite("TLS on GnuTLS", .serialized)
struct TLSGnuTLSTests {
    static let backend = GnuTLSTrustBackend()
    static let host = "www.example.com"
    static let password = "correct horse"
    static let timeouts = TLSTimeouts(connect: .seconds(3), handshake: .seconds(5), read: .seconds(5))

    static let versionsAndKeys: [(TLSVersion, TestKeyAlgorithm)] =
        [TLSVersion.tls12, .tls13].flatMap { v in [TestKeyAlgorithm.rsa2048, .ecdsaP256].map { (v, $0) } }

    // MARK: Helpers

    /// The leaf and intermediate with the leaf's key, imported by GnuTLS from PEM.
    static func identity(_ pki: TestHierarchy) throws -> ClientIdentity {
        try backend.importIdentity(certificateChainPEM: Array([pki.leaf, pki.intermediate].pem.utf8),
                                   privateKeyPEM: try TestPKI.privateKeyPEM(of: pki.leaf, password: nil), password: nil)
    }

    /// The leaf and intermediate with the leaf's key, from a PKCS#12 file imported by GnuTLS.
    static func pkcs12Identity(_ pki: TestHierarchy) throws -> ClientIdentity {
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: password)
        return try backend.importPKCS12(p12, password: password)
    }

    static func clientConfiguration(anchors: [TestCertificate], version: TLSVersion? = nil,
                                    serverName: String? = host) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(serverName: serverName)
        configuration.anchors = .only(anchors.certificates)
        configuration.timeouts = timeouts
        if let version {
            configuration.minimumVersion = version
            configuration.maximumVersion = version
        }
        return configuration
    }

    static func serverConfiguration(_ identity: ClientIdentity, version: TLSVersion? = nil) -> TLSServerConfiguration {
        var configuration = TLSServerConfiguration(identity: identity)
        configuration.timeouts = timeouts
        if let version {
            configuration.minimumVersion = version
            configuration.maximumVersion = version
        }
        return configuration
    }

    static func capture<T: Sendable>(_ body: @Sendable () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Runs this backend's server and client against each other over an in-memory pipe.
    static func handshakePair(client: TLSClientConfiguration, server: TLSServerConfiguration)
        async -> (client: Result<TLSConnection, any Error>, server: Result<TLSConnection, any Error>) {
        // Both sides on threads of their own (see TLSMatrixTests.handshake).
        await TLSMatrixTests.handshake(client: backend, clientConfiguration: client, server: backend, serverConfiguration: server, host: host)
    }

    static func tlsError(_ result: Result<TLSConnection, any Error>) -> TLSError? {
        guard case .failure(let error) = result else { return nil }
        return error as? TLSError
    }

    /// Reads until `marker` has arrived or the peer closes.
    static func read(_ connection: TLSConnection, until marker: String, limit: Int = 1 << 20) async throws -> String {
        var all: [UInt8] = []
        while all.count < limit {
            let chunk = try await connection.read()
            if chunk.isEmpty { break }
            all += chunk
            if String(decoding: all, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: all, as: UTF8.self)
    }

    /// Writes a request and reads the whole answer (the servers close after an HTTP/1.0 reply).
    static func httpGet(_ connection: TLSConnection) async throws -> String {
        try await connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
        return String(decoding: try await connection.readToEnd(limit: 1 << 20), as: UTF8.self)
    }

    /// A challenge handler that records every challenge and answers with default handling.
    final class Recorder: Sendable {
        let challenges = Locked<[TLSProtectionSpace]>([])
        var methods: [TLSAuthenticationMethod] { challenges.withLock { $0.map(\.authenticationMethod) } }
        var handler: ClosureChallengeHandler {
            TLSChallengeHandlers.closure { [self] challenge in
                challenges.withLock { $0.append(challenge.protectionSpace) }
                return .performDefaultHandling
            }
        }
    }

    // MARK: (1) Client ↔ server in memory

    @Test("GnuTLS client and server: echo, version, presented chain", arguments: versionsAndKeys)
    func echoOverMemory(version: TLSVersion, key: TestKeyAlgorithm) async throws {
        let pki = try TestHierarchy.make(keyAlgorithm: key, leafDNSNames: [Self.host])
        var client = Self.clientConfiguration(anchors: pki.anchors, version: version)
        client.applicationProtocols = ["h2", "http/1.1"]
        var server = Self.serverConfiguration(try Self.identity(pki), version: version)
        server.applicationProtocols = ["http/1.1"]
        let (clientResult, serverResult) = await Self.handshakePair(client: client, server: server)
        let clientConnection = try clientResult.get()
        let serverConnection = try serverResult.get()

        #expect(clientConnection.negotiatedVersion == version)
        #expect(serverConnection.negotiatedVersion == version)
        #expect(clientConnection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        #expect(serverConnection.peerCertificates.isEmpty)
        #expect(clientConnection.negotiatedApplicationProtocol == "http/1.1")
        #expect(serverConnection.negotiatedApplicationProtocol == "http/1.1")
        #expect(clientConnection.cipherSuite?.isEmpty == false)
        #expect(!clientConnection.isResumed && !serverConnection.isResumed)
        #expect(clientConnection.context.evaluation?.isTrusted == true)
        #expect(clientConnection.context.challenges == [.serverTrust])

        let message = Array("ping over \(version) with \(key)".utf8)
        let echoed = ThreadFuture { () -> Result<Void, any Error> in
            Result { try serverConnection.writeBlocking(try serverConnection.readBlocking()) }
        }
        try await clientConnection.write(message)
        let reply = try await clientConnection.read()
        try await echoed.value.get()
        #expect(reply == message)

        // close_notify: the other side reads end of stream.
        await clientConnection.close()
        #expect(try await serverConnection.read().isEmpty)
        await serverConnection.close()
    }

    @Test("A large write arrives whole")
    func largeTransfer() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let (clientResult, serverResult) = await Self.handshakePair(
            client: Self.clientConfiguration(anchors: pki.anchors), server: Self.serverConfiguration(try Self.identity(pki)))
        let client = try clientResult.get()
        let server = try serverResult.get()
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await client.write(payload)
        await client.close()
        #expect(try await server.readToEnd() == payload)
        await server.close()
    }

    // MARK: (2) Refused servers

    @Test("A server from a CA that is not an anchor is refused during the handshake", arguments: [TLSVersion.tls12, .tls13])
    func untrustedCAIsRefused(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let stranger = try TestHierarchy.make(leafDNSNames: [Self.host])
        let recorder = Recorder()
        var client = Self.clientConfiguration(anchors: stranger.anchors, version: version)
        client.challengeHandler = recorder.handler
        let (clientResult, serverResult) = await Self.handshakePair(
            client: client, server: Self.serverConfiguration(try Self.identity(pki), version: version))

        let error = try #require(Self.tlsError(clientResult))
        #expect(error.code == .peerTrustRefused, "\(error)")
        #expect(error.evaluation?.isTrusted == false)
        #expect(recorder.methods == [.serverTrust])
        #expect(recorder.challenges.withLock { $0.first?.serverTrust?.certificates } == [pki.leaf.certificate, pki.intermediate.certificate])
        // The server saw the fatal alert: its handshake failed too.
        let serverError = try #require(Self.tlsError(serverResult))
        #expect(serverError.code == .handshakeFailed, "\(serverError)")
        #expect(serverError.message.contains("Certificate is bad"), "\(serverError)")
    }

    @Test("A server whose certificate does not name the host is refused", arguments: [TLSVersion.tls12, .tls13])
    func hostNameMismatchIsRefused(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: ["other.example.net"])
        let recorder = Recorder()
        var client = Self.clientConfiguration(anchors: pki.anchors, version: version)
        client.challengeHandler = recorder.handler
        let (clientResult, serverResult) = await Self.handshakePair(
            client: client, server: Self.serverConfiguration(try Self.identity(pki), version: version))

        let error = try #require(Self.tlsError(clientResult))
        #expect(error.code == .peerTrustRefused, "\(error)")
        #expect(recorder.methods == [.serverTrust])
        #expect(recorder.challenges.withLock { $0.first?.host } == Self.host)
        #expect(Self.tlsError(serverResult) != nil)
    }

    // MARK: (3) Pinning

    @Test("A pin on another key refuses the server with publicKeyPinningFailed", arguments: [TLSVersion.tls12, .tls13])
    func pinMismatchIsRefused(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let other = try TestHierarchy.make(leafDNSNames: [Self.host])
        var client = Self.clientConfiguration(anchors: pki.anchors, version: version)
        client.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([other.leaf.certificate.publicKey]))
        let (clientResult, serverResult) = await Self.handshakePair(
            client: client, server: Self.serverConfiguration(try Self.identity(pki), version: version))

        let error = try #require(Self.tlsError(clientResult))
        #expect(error.code == .peerTrustRefused, "\(error)")
        let reason = try #require(error.underlying as? ServerTrustError, "\(error)")
        #expect(reason.code == .publicKeyPinningFailed)
        #expect(Self.tlsError(serverResult) != nil)

        // The right pin is accepted.
        client.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([pki.intermediate.certificate.publicKey]))
        let (accepted, acceptedServer) = await Self.handshakePair(
            client: client, server: Self.serverConfiguration(try Self.identity(pki), version: version))
        await (try accepted.get()).close()
        await (try acceptedServer.get()).close()
    }

    // MARK: (4) Mutual TLS

    static func mutualServer(_ pki: TestHierarchy, clientCA: TestHierarchy, version: TLSVersion,
                             mode: TLSClientAuthentication = .required) throws -> TLSServerConfiguration {
        var server = serverConfiguration(try identity(pki), version: version)
        server.clientAuthentication = mode
        server.clientAnchors = .only(clientCA.anchors.certificates)
        return server
    }

    @Test("Mutual TLS with a PKCS#12 identity: accepted, and the server sees the client's chain", arguments: [TLSVersion.tls12, .tls13])
    func mutualTLSSucceeds(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(keyAlgorithm: .rsa2048, leafDNSNames: ["client.example.com"])
        let recorder = Recorder()
        var client = Self.clientConfiguration(anchors: pki.anchors, version: version)
        client.identity = try Self.pkcs12Identity(clientPKI)
        client.challengeHandler = recorder.handler
        let (clientResult, serverResult) = await Self.handshakePair(
            client: client, server: try Self.mutualServer(pki, clientCA: clientPKI, version: version))
        let clientConnection = try clientResult.get()
        let serverConnection = try serverResult.get()

        #expect(serverConnection.peerCertificates == [clientPKI.leaf.certificate, clientPKI.intermediate.certificate])
        #expect(serverConnection.context.challenges == [.clientTrust])
        #expect(serverConnection.context.evaluation?.isTrusted == true)
        #expect(Set(recorder.methods) == [.serverTrust, .clientCertificate])
        #expect(clientConnection.context.sentIdentity?.certificate == clientPKI.leaf.certificate)
        // GnuTLS reports the CertificateRequest's CA names: the server's client anchors.
        #expect(Self.backend.reportsAcceptableCANames)
        let names = recorder.challenges.withLock { $0.first { $0.authenticationMethod == .clientCertificate }?.distinguishedNames }
        #expect(names == [clientPKI.root.certificate.subject])

        try await clientConnection.write(Array("hello".utf8))
        #expect(try await serverConnection.read() == Array("hello".utf8))
        await clientConnection.close()
        await serverConnection.close()
    }

    @Test("Mutual TLS without a client identity fails on both sides", arguments: [TLSVersion.tls12, .tls13])
    func mutualTLSWithoutIdentityFails(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        let recorder = Recorder()
        var client = Self.clientConfiguration(anchors: pki.anchors, version: version)
        client.challengeHandler = recorder.handler
        let (clientResult, serverResult) = await Self.handshakePair(
            client: client, server: try Self.mutualServer(pki, clientCA: clientPKI, version: version))

        let serverError = try #require(Self.tlsError(serverResult))
        #expect(serverError.code == .noPeerCertificate, "\(serverError)")
        #expect(recorder.methods.contains(.clientCertificate))
        try await Self.expectClientFails(clientResult)
    }

    @Test("Mutual TLS with a client certificate from another CA fails", arguments: [TLSVersion.tls12, .tls13])
    func mutualTLSWithForeignClientCAFails(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        let otherClientPKI = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        var client = Self.clientConfiguration(anchors: pki.anchors, version: version)
        client.identity = try Self.pkcs12Identity(otherClientPKI)
        let (clientResult, serverResult) = await Self.handshakePair(
            client: client, server: try Self.mutualServer(pki, clientCA: clientPKI, version: version))

        let serverError = try #require(Self.tlsError(serverResult))
        #expect(serverError.code == .peerTrustRefused, "\(serverError)")
        #expect(serverError.evaluation?.isTrusted == false)
        try await Self.expectClientFails(clientResult)
    }

    @Test("A handler that cancels the client-certificate challenge ends the handshake", arguments: [TLSVersion.tls12, .tls13])
    func cancelledClientCertificateChallenge(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        var client = Self.clientConfiguration(anchors: pki.anchors, version: version)
        client.identity = try Self.pkcs12Identity(clientPKI)
        client.challengeHandler = TLSChallengeHandlers.closure { challenge in
            challenge.protectionSpace.authenticationMethod == .clientCertificate ? .cancel() : .performDefaultHandling
        }
        let (clientResult, serverResult) = await Self.handshakePair(
            client: client, server: try Self.mutualServer(pki, clientCA: clientPKI, version: version))
        #expect(Self.tlsError(clientResult)?.code == .cancelled, "\(String(describing: Self.tlsError(clientResult)))")
        #expect(Self.tlsError(serverResult) != nil)
    }

    @Test("Rejecting the client-certificate protection space sends no certificate", arguments: [TLSVersion.tls12, .tls13])
    func rejectedClientCertificateProtectionSpace(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        var client = Self.clientConfiguration(anchors: pki.anchors, version: version)
        client.identity = try Self.pkcs12Identity(clientPKI)
        client.challengeHandler = TLSChallengeHandlers.closure { challenge in
            challenge.protectionSpace.authenticationMethod == .clientCertificate ? .rejectProtectionSpace : .performDefaultHandling
        }
        let (clientResult, serverResult) = await Self.handshakePair(
            client: client, server: try Self.mutualServer(pki, clientCA: clientPKI, version: version))
        #expect(Self.tlsError(serverResult)?.code == .noPeerCertificate)
        try await Self.expectClientFails(clientResult)
    }

    @Test("No common version is a handshake failure on both sides")
    func noCommonVersion() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let (clientResult, serverResult) = await Self.handshakePair(
            client: Self.clientConfiguration(anchors: pki.anchors, version: .tls13),
            server: Self.serverConfiguration(try Self.identity(pki), version: .tls12))
        #expect(Self.tlsError(clientResult)?.code == .handshakeFailed, "\(String(describing: Self.tlsError(clientResult)))")
        #expect(Self.tlsError(serverResult)?.code == .handshakeFailed, "\(String(describing: Self.tlsError(serverResult)))")
    }

    @Test("Optional client authentication accepts a client without a certificate")
    func optionalClientAuthentication() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        let (clientResult, serverResult) = await Self.handshakePair(
            client: Self.clientConfiguration(anchors: pki.anchors),
            server: try Self.mutualServer(pki, clientCA: clientPKI, version: .tls13, mode: .optional))
        let client = try clientResult.get()
        let server = try serverResult.get()
        #expect(server.peerCertificates.isEmpty)
        #expect(server.context.challenges.isEmpty)
        await client.close()
        await server.close()
    }

    @Test("An identity imported by another backend is an invalid configuration")
    func foreignIdentityIsRefused() async throws {
        final class ForeignKey: PrivateKeyHandle { let publicKey: PublicKey; init(publicKey: PublicKey) { self.publicKey = publicKey } }
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let foreign = try ClientIdentity(certificate: pki.leaf.certificate, certificateChain: [],
                                         privateKey: ForeignKey(publicKey: pki.leaf.certificate.publicKey))
        var client = Self.clientConfiguration(anchors: pki.anchors)
        client.identity = foreign
        let (clientSide, _) = MemoryTransport.makePair()
        let foreignClient = client
        let result = await Self.capture {
            try await TLSConnection.connect(over: clientSide, host: Self.host, configuration: foreignClient, backend: Self.backend)
        }
        #expect(Self.tlsError(result)?.code == .invalidConfiguration)
        let serverResult = await Self.capture {
            try await TLSConnection.accept(over: MemoryTransport.makePair().1, configuration: Self.serverConfiguration(foreign), backend: Self.backend)
        }
        #expect(Self.tlsError(serverResult)?.code == .invalidConfiguration)
    }

    /// The client either fails its handshake or (TLS 1.3: the server judges the client's
    /// certificate after the client has finished) fails on its first read, with
    /// `.clientCertificateRejected` either way.
    static func expectClientFails(_ result: Result<TLSConnection, any Error>) async throws {
        switch result {
        case .failure(let error):
            #expect((error as? TLSError)?.code == .clientCertificateRejected, "\(error)")
        case .success(let connection):
            // The server's alert is waiting; a write first could instead meet the closed transport.
            do {
                let data = try await connection.read()
                Issue.record("the refused client read \(data.count) bytes")
            } catch {
                #expect((error as? TLSError)?.code == .clientCertificateRejected, "\(error)")
            }
            await connection.close()
        }
    }

    // MARK: (5) Interoperability

    @Test("GnuTLS client against openssl s_server", arguments: [TLSVersion.tls12, .tls13])
    func againstOpenSSLServer(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .rsa2048, leafDNSNames: [Self.host])
        let server = try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version)
        defer { server.stop() }
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port,
                                                         configuration: Self.clientConfiguration(anchors: pki.anchors),
                                                         backend: Self.backend)
        #expect(connection.negotiatedVersion == version)
        #expect(connection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        let reply = try await Self.httpGet(connection)
        #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
        await connection.close()
    }

    @Test("GnuTLS client against gnutls-serv, with an IP-address certificate and no SNI")
    func againstGnuTLSServer() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["127.0.0.1"])
        let server = try ExternalTLSPeer.gnutlsServer(leaf: pki.leaf, chain: [pki.intermediate])
        defer { server.stop() }
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port,
                                                         configuration: Self.clientConfiguration(anchors: pki.anchors, serverName: nil),
                                                         backend: Self.backend)
        #expect(connection.negotiatedVersion == .tls13)
        try await connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
        let reply = try await Self.read(connection, until: "</HTML>")
        #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
        await connection.close()
    }

    @Test("GnuTLS client against nginx, and nginx with ssl_verify_client on")
    func againstNginx() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        let server = try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello from nginx\n")
        defer { server.stop() }
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port,
                                                         configuration: Self.clientConfiguration(anchors: pki.anchors),
                                                         backend: Self.backend)
        let reply = try await Self.httpGet(connection)
        #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
        #expect(reply.hasSuffix("hello from nginx\n"))
        await connection.close()

        let mutual = try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello, client\n",
                                               requireClientCertificate: true, clientCAs: [clientPKI.root])
        defer { mutual.stop() }
        var client = Self.clientConfiguration(anchors: pki.anchors)
        client.identity = try Self.pkcs12Identity(clientPKI)
        let authenticated = try await TLSConnection.connect(host: "127.0.0.1", port: mutual.port, configuration: client, backend: Self.backend)
        let answer = try await Self.httpGet(authenticated)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        #expect(answer.hasSuffix("hello, client\n"))
        await authenticated.close()
    }

    @Test("Mutual TLS against openssl s_server -Verify", arguments: [TLSVersion.tls12, .tls13])
    func mutualTLSAgainstOpenSSLServer(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(keyAlgorithm: .rsa2048, leafDNSNames: ["client.example.com"])
        let server = try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version,
                                                       requireClientCertificate: true, clientCAs: [clientPKI.root])
        defer { server.stop() }
        let recorder = Recorder()
        var client = Self.clientConfiguration(anchors: pki.anchors)
        client.identity = try Self.pkcs12Identity(clientPKI)
        client.challengeHandler = recorder.handler
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port, configuration: client, backend: Self.backend)
        let reply = try await Self.httpGet(connection)
        #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
        let names = recorder.challenges.withLock { $0.first { $0.authenticationMethod == .clientCertificate }?.distinguishedNames }
        #expect(names == [clientPKI.root.certificate.subject])
        await connection.close()

        // Without an identity, s_server refuses the client.
        let bare = await Self.capture {
            try await TLSConnection.connect(host: "127.0.0.1", port: server.port,
                                            configuration: Self.clientConfiguration(anchors: pki.anchors), backend: Self.backend)
        }
        if case .failure(let error) = bare {
            #expect((error as? TLSError)?.code == .clientCertificateRejected, "\(error)")
        } else {
            try await Self.expectClientFails(bare)
        }
    }

    @Test("GnuTLS server against openssl s_client", arguments: [TLSVersion.tls12, .tls13])
    func serverAgainstOpenSSLClient(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let directory = try TemporaryDirectory(prefix: "tlstrust-s_client")
        let caFile = directory.file("ca.pem")
        try TestPKI.writePEM(pki.anchors, to: caFile)
        let listener = try TCPListener()
        defer { listener.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "s_client", "-connect", "127.0.0.1:\(listener.port)", "-servername", Self.host,
                             "-CAfile", caFile.path, "-verify_return_error", "-verify_hostname", Self.host]
        let input = Pipe()
        let output = directory.file("s_client.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let outputHandle = try FileHandle(forWritingTo: output)
        process.standardInput = input
        process.standardOutput = outputHandle
        process.standardError = outputHandle
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

        let transport = try listener.accept(timeout: .seconds(5))
        let connection = try await TLSConnection.accept(over: transport, configuration: Self.serverConfiguration(try Self.identity(pki), version: version),
                                                        port: listener.port, backend: Self.backend)
        #expect(connection.negotiatedVersion == version)
        input.fileHandleForWriting.write(Data("hello from s_client\n".utf8))
        let received = try await Self.read(connection, until: "\n")
        #expect(received == "hello from s_client\n")
        try await connection.write(Array("echo: \(received)".utf8))
        await connection.close()
        try? input.fileHandleForWriting.close()

        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning, "s_client did not exit")
        let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(log.contains("Verify return code: 0 (ok)"), "\(log)")
        #expect(log.contains("echo: hello from s_client"), "\(log)")
    }

    // MARK: (6) Hostile peers

    /// A TCP server on 127.0.0.1 that does `behaviour` with the first connection, on its own thread.
    final class HostileServer: Sendable {
        final class Held: Sendable { let connection = Locked<TCPTransport?>(nil) }
        let listener: TCPListener
        private let held = Held()

        init(_ behaviour: @escaping @Sendable (TCPTransport) -> Void) throws {
            let listener = try TCPListener()
            self.listener = listener
            let held = self.held
            Thread {
                guard let connection = try? listener.accept(timeout: .seconds(10)) else { return }
                held.connection.withLock { $0 = connection }
                behaviour(connection)
            }.start()
        }

        /// Stops listening and closes the accepted connection.
        func stop() {
            listener.close()
            held.connection.withLock { $0?.close() }
        }
    }

    static func connectToHostile(_ server: HostileServer, handshake: Duration = .seconds(3)) async -> (Result<TLSConnection, any Error>, Duration) {
        var configuration = clientConfiguration(anchors: [])
        configuration.timeouts.handshake = handshake
        let start = ContinuousClock.now
        let fixed = configuration
        let result = await capture {
            try await TLSConnection.connect(host: "127.0.0.1", port: server.listener.port, configuration: fixed, backend: backend)
        }
        return (result, start.duration(to: .now))
    }

    @Test("A server that answers with garbage is a protocol error")
    func garbageInsteadOfServerHello() async throws {
        let server = try HostileServer { connection in
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = try? buffer.withUnsafeMutableBytes { try connection.receive(into: $0, deadline: .now + .seconds(3)) }
            let garbage = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8) + (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try? garbage.withUnsafeBytes { try connection.send($0, deadline: .now + .seconds(3)) }
        }
        defer { server.stop() }
        let (result, _) = await Self.connectToHostile(server)
        let error = try #require(Self.tlsError(result))
        #expect(error.code == .protocolError, "\(error)")
    }

    @Test("A server that closes right after accepting is connectionClosed")
    func closesAfterAccepting() async throws {
        let server = try HostileServer { connection in connection.close() }
        defer { server.stop() }
        let (result, _) = await Self.connectToHostile(server)
        let error = try #require(Self.tlsError(result))
        #expect(error.code == .connectionClosed, "\(error)")
    }

    @Test("A server that closes after reading the ClientHello is connectionClosed")
    func closesMidHandshake() async throws {
        let server = try HostileServer { connection in
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = try? buffer.withUnsafeMutableBytes { try connection.receive(into: $0, deadline: .now + .seconds(3)) }
            connection.close()
        }
        defer { server.stop() }
        let (result, _) = await Self.connectToHostile(server)
        let error = try #require(Self.tlsError(result))
        #expect(error.code == .connectionClosed, "\(error)")
    }

    @Test("A server that stalls times out within the handshake limit")
    func stallingServerTimesOut() async throws {
        let server = try HostileServer { _ in }
        defer { server.stop() }
        let (result, elapsed) = await Self.connectToHostile(server, handshake: .seconds(1))
        let error = try #require(Self.tlsError(result))
        #expect(error.code == .timedOut, "\(error)")
        #expect(elapsed < .seconds(4), "took \(elapsed)")
    }

    // MARK: (7) No resumption

    @Test("A second connection to the same s_server is not resumed and is judged again", arguments: [TLSVersion.tls12, .tls13])
    func noResumption(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let server = try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version)
        defer { server.stop() }
        for _ in 0..<2 {
            let recorder = Recorder()
            var configuration = Self.clientConfiguration(anchors: pki.anchors)
            configuration.challengeHandler = recorder.handler
            let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port, configuration: configuration, backend: Self.backend)
            #expect(!connection.isResumed)
            #expect(recorder.methods == [.serverTrust])
            _ = try await Self.httpGet(connection)
            await connection.close()
        }
    }

    // MARK: Configuration

    @Test("Versions and capabilities are reported truthfully")
    func capabilities() throws {
        #expect(Self.backend.supportedTLSVersions == [.tls12, .tls13])
        #expect(Self.backend.reportsAcceptableCANames)
        #expect(throws: TLSError.self) { _ = try Self.backend.checkVersions(minimum: .tls13, maximum: .tls12) }
    }
}
