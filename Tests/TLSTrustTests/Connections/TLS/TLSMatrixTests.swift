import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Every client backend against every server backend, in one process over in-memory pipes: the
/// same trust decisions whichever library is on either side.
@Suite("TLS: every backend against every backend")
struct TLSMatrixTests {
    static let pairs: [(String, String)] = TestBackends.tlsNames.flatMap { client in TestBackends.tlsNames.map { (client, $0) } }

    static func backend(_ name: String) throws -> any TLSBackend {
        try #require(TestBackends.tls(name), "\(name) cannot run TLS")
    }

    /// Deadlines that only bound a failure: a handshake that succeeds takes milliseconds, but CI
    /// runs every suite at once on two cores. Tests of the deadlines themselves set their own.
    static let timeouts = TestDeadlines.tls(read: .seconds(5))

    /// A server identity and a client trusting its root.
    static func setup(_ pki: TestHierarchy, server: any TLSBackend) throws -> TLSServerConfiguration {
        let identity = try server.importIdentity(certificateChainPEM: Array((pki.leaf.pem + pki.intermediate.pem).utf8),
                                                 privateKeyPEM: Array(pki.leaf.privateKey.pkcs8PEM.utf8), password: nil)
        var configuration = TLSServerConfiguration(identity: identity)
        configuration.timeouts = timeouts
        return configuration
    }

    /// Runs a server and a client handshake over a fresh pipe, each on a thread of its own with
    /// the blocking calls (so that no deadline depends on how busy Swift's cooperative pool is,
    /// with the whole test suite running at once); returns both outcomes.
    static func handshake(client: any TLSBackend, clientConfiguration: TLSClientConfiguration,
                          server: any TLSBackend, serverConfiguration: TLSServerConfiguration,
                          host: String = "www.example.com")
    async -> (client: Result<TLSConnection, any Error>, server: Result<TLSConnection, any Error>) {
        let (clientSide, serverSide) = MemoryTransport.makePair()
        // Both threads start now, from this task: neither waits for a cooperative thread to begin.
        let accepted = ThreadFuture {
            let result = Result { try TLSConnection.acceptBlocking(over: serverSide, configuration: serverConfiguration, backend: server) }
            if case .failure = result { serverSide.close() }
            return result
        }
        let connected = ThreadFuture {
            let result = Result { try TLSConnection.connectBlocking(over: clientSide, host: host, configuration: clientConfiguration, backend: client) }
            if case .failure = result { clientSide.close() }
            return result
        }
        return (await connected.value, await accepted.value)
    }

    /// Runs `body` on a new thread and waits for it without holding a cooperative thread.
    static func onThread<T>(_ body: @escaping @Sendable () -> T) async -> T {
        await ThreadFuture(body).value
    }

    @Test("Handshake, data both ways, version and presented chain, on every version both sides support", arguments: pairs)
    func handshakeAndData(clientName: String, serverName: String) async throws {
        let client = try Self.backend(clientName), server = try Self.backend(serverName)
        for key in [TestKeyAlgorithm.ecdsaP256, .rsa2048] {
            let pki = try TestHierarchy.make(keyAlgorithm: key)
            let versions = TLSVersion.allCases.filter { client.supportedTLSVersions.contains($0) && server.supportedTLSVersions.contains($0) }
            #expect(!versions.isEmpty)
            for version in versions {
                var serverConfiguration = try Self.setup(pki, server: server)
                serverConfiguration.minimumVersion = version
                serverConfiguration.maximumVersion = version
                var configuration = TLSClientConfiguration()
                configuration.anchors = .only([pki.root.certificate])
                configuration.timeouts = Self.timeouts
                let (c, s) = await Self.handshake(client: client, clientConfiguration: configuration, server: server, serverConfiguration: serverConfiguration)
                let connection = try c.get(), serverConnection = try s.get()
                #expect(connection.negotiatedVersion == version, "\(clientName)→\(serverName) \(key) \(version)")
                #expect(serverConnection.negotiatedVersion == version)
                #expect(connection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
                #expect(connection.context.evaluation?.isTrusted == true)
                #expect(!connection.isResumed)
                try await connection.write(Array("ping \(clientName)".utf8))
                #expect(try await serverConnection.read() == Array("ping \(clientName)".utf8))
                try await serverConnection.write(Array("pong \(serverName)".utf8))
                #expect(try await connection.read() == Array("pong \(serverName)".utf8))
                await serverConnection.close()
                #expect(try await connection.read().isEmpty, "close_notify reads as end of stream")
                await connection.close()
            }
        }
    }

    @Test("A server from another CA is refused in the handshake; the server sees the alert", arguments: pairs)
    func refusedServer(clientName: String, serverName: String) async throws {
        let client = try Self.backend(clientName), server = try Self.backend(serverName)
        let pki = try TestHierarchy.make()
        let other = try TestHierarchy.make()
        var configuration = TLSClientConfiguration()
        configuration.anchors = .only([other.root.certificate])
        configuration.timeouts = Self.timeouts
        let (c, s) = await Self.handshake(client: client, clientConfiguration: configuration, server: server,
                                          serverConfiguration: try Self.setup(pki, server: server))
        let error = try #require(Self.tlsError(c))
        #expect(error.code == .peerTrustRefused, "\(error)")
        #expect(error.underlying is TrustEvaluationError)
        #expect(error.evaluation?.primaryFailure?.code == .unknownIssuer, "\(error)")
        // An OpenSSL TLS 1.3 client sends its alert before it has switched to its handshake keys;
        // the GnuTLS server cannot decrypt it, and the core reads it as the plaintext alert it is.
        TLSBackendTests.expectServerSawBadCertificate(serverName, s)
    }

    @Test("Mutual TLS with a PKCS#12 identity; no certificate, or one from another CA, is refused", arguments: pairs)
    func mutualTLS(clientName: String, serverName: String) async throws {
        let client = try Self.backend(clientName), server = try Self.backend(serverName)
        let pki = try TestHierarchy.make()
        let clients = try TestHierarchy.make(leafDNSNames: ["client.example.com"]) { _ in } customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] }
        let strangers = try TestHierarchy.make(leafDNSNames: ["client.example.com"]) { _ in } customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] }
        var serverConfiguration = try Self.setup(pki, server: server)
        serverConfiguration.clientAuthentication = .required
        serverConfiguration.clientAnchors = .only([clients.root.certificate])
        var configuration = TLSClientConfiguration()
        configuration.anchors = .only([pki.root.certificate])
        configuration.timeouts = Self.timeouts

        var good = configuration
        good.identity = try client.importPKCS12(try TestPKI.pkcs12(leaf: clients.leaf, chain: [clients.intermediate], password: "pw"), password: "pw")
        let (c, s) = await Self.handshake(client: client, clientConfiguration: good, server: server, serverConfiguration: serverConfiguration)
        let accepted = try s.get()
        #expect(accepted.peerCertificates.first == clients.leaf.certificate)
        #expect(try c.get().context.sentIdentity?.certificate == clients.leaf.certificate)

        let (c2, s2) = await Self.handshake(client: client, clientConfiguration: configuration, server: server, serverConfiguration: serverConfiguration)
        #expect(Self.tlsError(s2)?.code == .noPeerCertificate, "\(s2)")
        _ = c2  // TLS 1.3 clients may finish before the server's alert arrives; the server is what decides.

        var stranger = configuration
        stranger.identity = try client.importPKCS12(try TestPKI.pkcs12(leaf: strangers.leaf, chain: [strangers.intermediate], password: "pw"), password: "pw")
        let (_, s3) = await Self.handshake(client: client, clientConfiguration: stranger, server: server, serverConfiguration: serverConfiguration)
        #expect(Self.tlsError(s3)?.code == .peerTrustRefused, "\(s3)")
    }

    @Test("A client that refuses the server sends no certificate to it, though it has one", arguments: pairs)
    func noCertificateAfterRefusal(clientName: String, serverName: String) async throws {
        let client = try Self.backend(clientName), server = try Self.backend(serverName)
        let pki = try TestHierarchy.make()
        let other = try TestHierarchy.make()
        let clients = try TestHierarchy.make(leafDNSNames: ["client.example.com"]) { _ in } customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] }
        let seenByServer = Locked<Int>(0)
        var serverConfiguration = try Self.setup(pki, server: server)
        serverConfiguration.clientAuthentication = .required
        serverConfiguration.clientAnchors = .only([clients.root.certificate])
        serverConfiguration.challengeHandler = ClosureChallengeHandler { challenge in
            seenByServer.withLock { $0 += 1 }
            return .performDefaultHandling
        }
        var configuration = TLSClientConfiguration()
        configuration.anchors = .only([other.root.certificate])
        configuration.timeouts = Self.timeouts
        configuration.identity = try client.importPKCS12(try TestPKI.pkcs12(leaf: clients.leaf, chain: [clients.intermediate], password: "pw"), password: "pw")
        let (c, s) = await Self.handshake(client: client, clientConfiguration: configuration, server: server, serverConfiguration: serverConfiguration)
        #expect(Self.tlsError(c)?.code == .peerTrustRefused)
        #expect(Self.tlsError(s) != nil)
        #expect(seenByServer.withLock { $0 } == 0, "the server received a client certificate after the client refused it")
    }

    @Test("An identity imported by another backend is refused as .invalidConfiguration, not sent", arguments: pairs.filter { $0.0 != $0.1 })
    func foreignIdentity(clientName: String, importerName: String) async throws {
        let client = try Self.backend(clientName), importer = try Self.backend(importerName)
        let pki = try TestHierarchy.make()
        var configuration = TLSClientConfiguration()
        configuration.anchors = .only([pki.root.certificate])
        configuration.timeouts = Self.timeouts
        configuration.identity = try importer.importPKCS12(try TestPKI.pkcs12(leaf: pki.leaf, password: "pw"), password: "pw")
        var serverConfiguration = try Self.setup(pki, server: client)
        serverConfiguration.clientAuthentication = .required
        serverConfiguration.clientAnchors = .only([pki.root.certificate])
        let (c, _) = await Self.handshake(client: client, clientConfiguration: configuration, server: client, serverConfiguration: serverConfiguration)
        #expect(Self.tlsError(c)?.code == .invalidConfiguration, "\(c)")
    }

    static func tlsError(_ result: Result<TLSConnection, any Error>) -> TLSError? {
        if case .failure(let error) = result { return error as? TLSError }
        return nil
    }
}

/// Work started at once on a thread of its own; `value` waits for it without holding a
/// cooperative thread while it runs.
final class ThreadFuture<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Behind a lock as well as the semaphore: ThreadSanitizer does not see the happens-before
    /// edge of a DispatchSemaphore on Linux (a futex), but it does see a pthread mutex's.
    private let result = Locked<T?>(nil)

    init(_ body: @escaping @Sendable () -> T) {
        Thread { [self] in
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }.start()
    }

    var value: T {
        get async {
            // Waits on a thread of `offThePool`'s, never on a `DispatchQueue.global()` worker:
            // those are about one per core, and waiting tests that held them all once kept
            // challenge handlers from starting until their handshakes timed out.
            await offThePool { [self] in
                done.wait()
                done.signal()
            }
            return result.withLock { $0! }
        }
    }

    /// Waits for the result, blocking the calling thread: only for code already off the pool.
    func join() -> T {
        done.wait()
        done.signal()
        return result.withLock { $0! }
    }
}

/// Carries a non-Sendable result (a connection) from the thread that made it to the test.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
