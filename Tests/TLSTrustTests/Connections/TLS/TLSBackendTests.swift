import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Every TLS backend's client against its own server, in one process over in-memory pipes: the
/// behaviours every backend must have — the handshake and data on each version it negotiates, the
/// trust decision inside the handshake (refusals, pins, mutual TLS and the client-certificate
/// challenge), version ranges and foreign identities. One suite, generic over `TestBackends`;
/// what is particular to one library (its interoperability with real peers, its own limits) is in
/// `TLSOpenSSLTests`, `TLSGnuTLSTests` and `TLSMbedTLSTests`, clients of one backend against
/// servers of another in `TLSMatrixTests`, and hostile servers in `TLSHostilePeerTests`.
@Suite("TLS: each backend's client and server")
struct TLSBackendTests {
    static let host = "www.example.com"
    static let password = "correct horse"
    static let keys: [TestKeyAlgorithm] = [.ecdsaP256, .rsa2048]

    /// Every TLS backend, every version (supported or not), every key.
    static let versionsAndKeys: [(String, TLSVersion, TestKeyAlgorithm)] = TestBackends.tlsNames.flatMap { name in
        TLSVersion.allCases.flatMap { version in keys.map { (name, version, $0) } }
    }

    /// Every TLS backend with each version it negotiates, and every key.
    static let supportedVersionsAndKeys: [(String, TLSVersion, TestKeyAlgorithm)] = TestBackends.tlsVersions.flatMap { name, version in
        keys.map { (name, version, $0) }
    }

    // MARK: Helpers

    /// Minting (and `openssl pkcs12`) on a thread of its own, off the cooperative pool that the
    /// connections' challenge handlers need.
    static func minted<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await TLSMatrixTests.onThread { Result { try body() } }.get()
    }

    static func pki(_ key: TestKeyAlgorithm = .ecdsaP256, names: [String] = [host]) async throws -> TestHierarchy {
        try await minted { try TestHierarchy.make(keyAlgorithm: key, leafDNSNames: names) }
    }

    static func client(_ pki: TestHierarchy, version: TLSVersion? = nil) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(serverName: host)
        configuration.anchors = .only([pki.root.certificate])
        configuration.timeouts = TLSMatrixTests.timeouts
        if let version { configuration.minimumVersion = version; configuration.maximumVersion = version }
        return configuration
    }

    static func server(_ pki: TestHierarchy, on backend: any TLSBackend, version: TLSVersion? = nil) throws -> TLSServerConfiguration {
        var configuration = try TLSMatrixTests.setup(pki, server: backend)
        if let version { configuration.minimumVersion = version; configuration.maximumVersion = version }
        return configuration
    }

    /// The leaf and intermediate of `pki` as a PKCS#12 file (made by `openssl pkcs12`), imported by `backend`.
    static func identity(_ pki: TestHierarchy, on backend: any TLSBackend) async throws -> ClientIdentity {
        let p12 = try await minted { try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: password) }
        return try backend.importPKCS12(p12, password: password)
    }

    /// `backend`'s client against its own server over an in-memory pipe; both outcomes.
    static func handshake(_ backend: any TLSBackend, client: TLSClientConfiguration, server: TLSServerConfiguration)
        async -> (client: Result<TLSConnection, any Error>, server: Result<TLSConnection, any Error>) {
        await TLSMatrixTests.handshake(client: backend, clientConfiguration: client, server: backend, serverConfiguration: server, host: host)
    }

    static func code(_ result: Result<TLSConnection, any Error>) -> TLSError.Code? { TLSMatrixTests.tlsError(result)?.code }

    /// A handler that records every challenge, answering with default handling (or with `identity`
    /// for a client-certificate challenge).
    final class Recorder: TLSChallengeHandler {
        let spaces = Locked<[TLSProtectionSpace]>([])
        let identity: ClientIdentity?
        init(identity: ClientIdentity? = nil) { self.identity = identity }
        var methods: [TLSAuthenticationMethod] { spaces.withLock { $0.map(\.authenticationMethod) } }
        /// The latest client-certificate challenge's protection space.
        var clientCertificateSpace: TLSProtectionSpace? { spaces.withLock { $0.last { $0.authenticationMethod == .clientCertificate } } }
        func handle(_ challenge: TLSAuthenticationChallenge) async -> TLSChallengeResponse {
            spaces.withLock { $0.append(challenge.protectionSpace) }
            if challenge.protectionSpace.authenticationMethod == .clientCertificate, let identity {
                return .useCredential(.identity(identity))
            }
            return .performDefaultHandling
        }
    }

    /// A server whose client refused it ends its handshake with `.handshakeFailed`, naming the
    /// client's bad_certificate alert.
    static func expectServerSawBadCertificate(_ name: String, _ result: Result<TLSConnection, any Error>,
                                             sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = TLSMatrixTests.tlsError(result) else {
            Issue.record("\(name): the server completed its handshake with a client that refused it: \(result)", sourceLocation: sourceLocation)
            return
        }
        // The alert is read by the core as a portable TLSAlert, so every backend's server reports
        // it alike, under its RFC 8446 name, whichever library (or client) is on either side.
        #expect(error.code == .handshakeFailed, "\(name): the server saw \(error.code): \(error)", sourceLocation: sourceLocation)
        #expect("\(error)".contains("the fatal alert bad_certificate during the handshake"),
                "\(name): the server names the alert as every backend does: \(error)", sourceLocation: sourceLocation)
    }

    /// The error a client sees from its handshake or, failing that, from its first read (TLS 1.3
    /// clients finish before the server has judged their certificate; the refusal is the alert
    /// that read finds). Nil when the server let it through.
    static func failureOnUse(_ result: Result<TLSConnection, any Error>) async -> TLSError? {
        let connection: TLSConnection
        do { connection = try result.get() } catch { return error as? TLSError ?? TLSError(.handshakeFailed, "\(error)") }
        do {
            let data = try await connection.read()
            await connection.close()
            return data.isEmpty ? TLSError(.connectionClosed, "end of stream") : nil
        } catch {
            await connection.close()
            return error as? TLSError ?? TLSError(.handshakeFailed, "\(error)")
        }
    }

    /// A client whose certificate the server refused learns it as `.clientCertificateRejected`;
    /// mbedTLS 2.28 may see the closed connection or a failed handshake instead of the alert.
    static func expectClientRefused(_ name: String, _ result: Result<TLSConnection, any Error>,
                                    sourceLocation: SourceLocation = #_sourceLocation) async {
        let error = await failureOnUse(result)
        let allowed: Set<TLSError.Code> = name == "mbedtls"
            ? [.clientCertificateRejected, .connectionClosed, .handshakeFailed] : [.clientCertificateRejected]
        #expect(error.map { allowed.contains($0.code) } == true, "\(name): \(String(describing: error))", sourceLocation: sourceLocation)
    }

    /// The challenges a mutual-TLS client is asked: the server's trust, then the client
    /// certificate — except that GnuTLS may ask for the client certificate first on TLS 1.3.
    static func expectServerTrustAndClientCertificate(_ name: String, _ methods: [TLSAuthenticationMethod],
                                                      sourceLocation: SourceLocation = #_sourceLocation) {
        if name == "gnutls" {
            #expect(methods.count == 2 && Set(methods) == [.serverTrust, .clientCertificate], "\(name): \(methods)", sourceLocation: sourceLocation)
        } else {
            #expect(methods == [.serverTrust, .clientCertificate], "\(name): \(methods)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Handshake and data

    @Test("Handshake, ALPN, echo and close_notify on each version the backend negotiates; another version is .unsupported",
          arguments: versionsAndKeys)
    func handshakeAndData(name: String, version: TLSVersion, key: TestKeyAlgorithm) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki(key)
        guard backend.supportedTLSVersions.contains(version) else {
            // Asked for a version it cannot negotiate, either side refuses up front.
            var client = Self.client(pki)
            client.minimumVersion = version
            var server = try Self.server(pki, on: backend)
            server.minimumVersion = version
            let (c, s) = await Self.handshake(backend, client: client, server: server)
            #expect(Self.code(c) == .unsupported, "\(name) client: \(c)")
            #expect(Self.code(s) == .unsupported, "\(name) server: \(s)")
            return
        }
        var client = Self.client(pki, version: version)
        client.applicationProtocols = ["h2", "http/1.1"]
        var server = try Self.server(pki, on: backend, version: version)
        server.applicationProtocols = ["http/1.1"]
        let (c, s) = await Self.handshake(backend, client: client, server: server)
        let connection = try c.get(), serverConnection = try s.get()
        #expect(connection.negotiatedVersion == version)
        #expect(serverConnection.negotiatedVersion == version)
        #expect(connection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        #expect(serverConnection.peerCertificates.isEmpty)
        #expect(connection.negotiatedApplicationProtocol == "http/1.1")
        #expect(serverConnection.negotiatedApplicationProtocol == "http/1.1")
        #expect(connection.cipherSuite?.isEmpty == false)
        #expect(!connection.isResumed && !serverConnection.isResumed)
        #expect(connection.context.challenges == [.serverTrust])
        #expect(connection.context.evaluation?.isTrusted == true)

        let message = Array("ping over \(version) with \(key)".utf8)
        try await connection.write(message)
        let received = try await serverConnection.read()
        #expect(received == message)
        try await serverConnection.write(Array("echo: ".utf8) + received)
        #expect(try await connection.read() == Array("echo: ".utf8) + message)

        // close_notify reads as end of stream, either way round.
        await serverConnection.close()
        #expect(try await connection.read().isEmpty)
        await connection.close()
    }

    @Test("A large write (many records) arrives whole", arguments: TestBackends.tlsNames)
    func largeTransfer(name: String) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki()
        let (c, s) = await Self.handshake(backend, client: Self.client(pki), server: try Self.server(pki, on: backend))
        let client = try c.get(), server = try s.get()
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await client.write(payload)
        await client.close()
        #expect(try await server.readToEnd() == payload)
        await server.close()
    }

    // MARK: Versions and identities

    @Test("A version range with its minimum above its maximum is .invalidConfiguration, up front", arguments: TestBackends.tlsNames)
    func invertedVersionRange(name: String) async throws {
        let backend = try TLSMatrixTests.backend(name)
        do {
            _ = try backend.checkVersions(minimum: .tls13, maximum: .tls12)
            Issue.record("\(name) accepted TLS 1.3…1.2")
        } catch let error as TLSError {
            #expect(error.code == .invalidConfiguration, "\(error)")
        }
        let pki = try await Self.pki()
        var client = Self.client(pki)
        client.minimumVersion = .tls13
        client.maximumVersion = .tls12
        let (c, _) = await Self.handshake(backend, client: client, server: try Self.server(pki, on: backend))
        #expect(Self.code(c) == .invalidConfiguration, "\(c)")
    }

    @Test("No common version is a handshake failure on both sides",
          arguments: TestBackends.tlsNames.filter { TestBackends.tls($0)!.supportedTLSVersions.count > 1 })
    func noCommonVersion(name: String) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki()
        for (clientVersion, serverVersion) in [(TLSVersion.tls12, TLSVersion.tls13), (.tls13, .tls12)] {
            let (c, s) = await Self.handshake(backend, client: Self.client(pki, version: clientVersion),
                                              server: try Self.server(pki, on: backend, version: serverVersion))
            #expect(Self.code(c) == .handshakeFailed, "\(name) client \(clientVersion), server \(serverVersion): \(c)")
            #expect(Self.code(s) == .handshakeFailed, "\(name) client \(clientVersion), server \(serverVersion): \(s)")
        }
    }

    @Test("An identity whose key another backend (or no backend) holds is .invalidConfiguration, for clients and servers",
          arguments: TestBackends.tlsNames)
    func foreignIdentity(name: String) async throws {
        final class ForeignKey: PrivateKeyHandle { let publicKey: PublicKey; init(publicKey: PublicKey) { self.publicKey = publicKey } }
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki()
        let other = try #require(TestBackends.tlsNames.first { $0 != name }.flatMap(TestBackends.tls), "a second TLS backend")
        let identities = [
            ("another backend's", try await Self.identity(pki, on: other)),
            ("a key no backend holds", try ClientIdentity(certificate: pki.leaf.certificate, certificateChain: [],
                                                          privateKey: ForeignKey(publicKey: pki.leaf.certificate.publicKey))),
        ]
        for (what, foreign) in identities {
            var serverConfiguration = TLSServerConfiguration(identity: foreign)
            serverConfiguration.timeouts = TLSMatrixTests.timeouts
            let (_, s) = await Self.handshake(backend, client: Self.client(pki), server: serverConfiguration)
            #expect(Self.code(s) == .invalidConfiguration, "\(name) server with \(what) identity: \(s)")
            var client = Self.client(pki)
            client.identity = foreign
            let (c, _) = await Self.handshake(backend, client: client, server: try Self.server(pki, on: backend))
            #expect(Self.code(c) == .invalidConfiguration, "\(name) client with \(what) identity: \(c)")
        }
    }

    // MARK: Refused servers and pins

    @Test("A server from a CA not in the anchors, or for another host, is refused in the handshake; the server sees the alert",
          arguments: TestBackends.tlsVersions)
    func refusedServer(name: String, version: TLSVersion) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki()
        let stranger = try await Self.pki()
        let otherHost = try await Self.pki(names: ["other.example.net"])
        for (what, served, trusted) in [("unknown CA", pki, stranger), ("wrong host", otherHost, otherHost)] {
            let recorder = Recorder()
            var client = Self.client(trusted, version: version)
            client.challengeHandler = recorder
            let (c, s) = await Self.handshake(backend, client: client, server: try Self.server(served, on: backend, version: version))
            let error = try #require(TLSMatrixTests.tlsError(c), "\(name) \(what): \(c)")
            #expect(error.code == .peerTrustRefused, "\(name) \(what): \(error)")
            #expect(error.underlying is TrustEvaluationError, "\(name) \(what): \(error)")
            #expect(error.evaluation?.isTrusted == false)
            #expect(recorder.methods == [.serverTrust], "\(name) \(what)")
            let space = recorder.spaces.withLock { $0.first }
            #expect(space?.host == Self.host)
            #expect(space?.serverTrust?.certificates == [served.leaf.certificate, served.intermediate.certificate])
            Self.expectServerSawBadCertificate(name, s)
        }
    }

    @Test("A public-key pin for another key refuses the server with .publicKeyPinningFailed; the leaf's or the intermediate's key is accepted",
          arguments: TestBackends.tlsVersions)
    func pins(name: String, version: TLSVersion) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki()
        let other = try await Self.pki()
        var client = Self.client(pki, version: version)
        client.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([other.leaf.certificate.publicKey, other.root.certificate.publicKey]))
        let (c, s) = await Self.handshake(backend, client: client, server: try Self.server(pki, on: backend, version: version))
        let error = try #require(TLSMatrixTests.tlsError(c), "\(name): \(c)")
        #expect(error.code == .peerTrustRefused)
        #expect((error.underlying as? ServerTrustError)?.code == .publicKeyPinningFailed, "\(name): \(error)")
        #expect(Self.code(s) != nil, "\(name): the server completed its handshake")

        for pinned in [pki.leaf, pki.intermediate] {
            client.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([pinned.certificate.publicKey]))
            let (accepted, served) = await Self.handshake(backend, client: client, server: try Self.server(pki, on: backend, version: version))
            await (try accepted.get()).close()
            await (try served.get()).close()
        }
    }

    // MARK: Mutual TLS

    @Test("Mutual TLS: a PKCS#12 identity from the client CA is accepted (from the configuration or the handler); none, or one from another CA, is refused; .optional admits none",
          arguments: supportedVersionsAndKeys)
    func mutualTLS(name: String, version: TLSVersion, key: TestKeyAlgorithm) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki()
        let clientPKI = try await Self.pki(key, names: ["client.example.com"])
        let strangerPKI = try await Self.pki(key, names: ["client.example.com"])
        var server = try Self.server(pki, on: backend, version: version)
        server.clientAuthentication = .required
        server.clientAnchors = .only([clientPKI.root.certificate])
        let identity = try await Self.identity(clientPKI, on: backend)
        #expect(backend.reportsAcceptableCANames)

        // Accepted, with the identity in the configuration and with the identity given by the handler.
        for fromHandler in [false, true] {
            let recorder = Recorder(identity: fromHandler ? identity : nil)
            var client = Self.client(pki)
            if !fromHandler { client.identity = identity }
            client.challengeHandler = recorder
            let (c, s) = await Self.handshake(backend, client: client, server: server)
            let connection = try c.get(), serverConnection = try s.get()
            Self.expectServerTrustAndClientCertificate(name, recorder.methods)
            #expect(recorder.clientCertificateSpace?.distinguishedNames == [clientPKI.root.certificate.subject], "\(name): the CA names")
            #expect(connection.context.sentIdentity?.certificate == clientPKI.leaf.certificate)
            #expect(serverConnection.peerCertificates == [clientPKI.leaf.certificate, clientPKI.intermediate.certificate])
            #expect(serverConnection.context.challenges == [.clientTrust])
            #expect(serverConnection.context.evaluation?.isTrusted == true)
            try await connection.write(Array("hello".utf8))
            #expect(try await serverConnection.read() == Array("hello".utf8))
            await connection.close()
            await serverConnection.close()
        }

        // No identity: the server refuses; the handler was asked.
        let recorder = Recorder()
        var bare = Self.client(pki)
        bare.challengeHandler = recorder
        let (c2, s2) = await Self.handshake(backend, client: bare, server: server)
        #expect(Self.code(s2) == .noPeerCertificate, "\(name): \(s2)")
        Self.expectServerTrustAndClientCertificate(name, recorder.methods)
        await Self.expectClientRefused(name, c2)

        // A certificate from another CA: refused by the server's trust decision.
        var stranger = Self.client(pki)
        stranger.identity = try await Self.identity(strangerPKI, on: backend)
        let (c3, s3) = await Self.handshake(backend, client: stranger, server: server)
        #expect(Self.code(s3) == .peerTrustRefused, "\(name): \(s3)")
        #expect(TLSMatrixTests.tlsError(s3)?.evaluation?.isTrusted == false)
        await Self.expectClientRefused(name, c3)

        // .optional: the stranger is still refused; a client with no certificate is let in.
        server.clientAuthentication = .optional
        let (_, s4) = await Self.handshake(backend, client: stranger, server: server)
        #expect(Self.code(s4) == .peerTrustRefused, "\(name): \(s4)")
        let (c5, s5) = await Self.handshake(backend, client: Self.client(pki), server: server)
        let anonymous = try c5.get(), served = try s5.get()
        #expect(served.peerCertificates.isEmpty)
        #expect(served.context.challenges.isEmpty)
        await anonymous.close()
        await served.close()
    }

    @Test("A handler that cancels the client-certificate challenge ends the handshake; one that rejects the protection space sends no certificate",
          arguments: TestBackends.tlsVersions)
    func clientCertificateChallengeAnswers(name: String, version: TLSVersion) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki()
        let clientPKI = try await Self.pki(names: ["client.example.com"])
        var server = try Self.server(pki, on: backend, version: version)
        server.clientAuthentication = .required
        server.clientAnchors = .only([clientPKI.root.certificate])
        var client = Self.client(pki)
        client.identity = try await Self.identity(clientPKI, on: backend)

        client.challengeHandler = TLSChallengeHandlers.closure { challenge in
            challenge.protectionSpace.authenticationMethod == .clientCertificate ? .cancel() : .performDefaultHandling
        }
        let (c, s) = await Self.handshake(backend, client: client, server: server)
        #expect(Self.code(c) == .cancelled, "\(name): \(c)")
        #expect(Self.code(s) != nil, "\(name): the server completed its handshake")

        client.challengeHandler = TLSChallengeHandlers.closure { challenge in
            challenge.protectionSpace.authenticationMethod == .clientCertificate ? .rejectProtectionSpace : .performDefaultHandling
        }
        let (c2, s2) = await Self.handshake(backend, client: client, server: server)
        #expect(Self.code(s2) == .noPeerCertificate, "\(name): \(s2)")
        await Self.expectClientRefused(name, c2)
    }
}
