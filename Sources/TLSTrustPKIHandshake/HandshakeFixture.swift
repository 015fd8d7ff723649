import TLSTrust
import TLSTrustPKI

/// One client and one server configuration for measuring full handshakes over in-memory pipes:
/// the handshake benchmarks (`Benchmarks/`, `tlstrust-dev bench`) and the soak.
///
/// Both sides run on the same backend. The client either decides trust as an app would (default
/// handling: the engine, with its verified-chain cache) or accepts whatever it is shown (a
/// handler answering `useCredential` without evaluating), which is the library's handshake with
/// TLSTrust's plumbing but no trust decision — the baseline the verified rate is compared with.
public struct HandshakeFixture: Sendable {
    /// The backend on both sides.
    public let backend: any TLSBackend
    /// The negotiated version, fixed on both sides.
    public let version: TLSVersion
    let server: TLSServerConfiguration
    let verifying: TLSClientConfiguration
    let accepting: TLSClientConfiguration

    /// - Parameters:
    ///   - backend: the TLS backend both sides run on.
    ///   - version: the TLS version both sides are fixed to.
    ///   - hierarchy: the server's chain (leaf + intermediate) and the client's anchor (root).
    ///   - host: the name the leaf carries.
    public init(backend: any TLSBackend, version: TLSVersion, hierarchy: TestHierarchy, host: String = "www.example.com") throws {
        self.backend = backend
        self.version = version
        let identity = try backend.importIdentity(
            certificateChainPEM: Array((hierarchy.leaf.pem + hierarchy.intermediate.pem).utf8),
            privateKeyPEM: Array(hierarchy.leaf.privateKey.pkcs8PEM.utf8), password: nil)
        var server = TLSServerConfiguration(identity: identity)
        server.minimumVersion = version
        server.maximumVersion = version
        var client = TLSClientConfiguration(serverName: host)
        client.anchors = .only([hierarchy.root.certificate])
        client.minimumVersion = version
        client.maximumVersion = version
        var accepting = client
        accepting.challengeHandler = ClosureChallengeHandler { challenge in
            .useCredential(.trust(challenge.protectionSpace.serverTrust ?? Trust(certificates: [])))
        }
        self.server = server
        self.verifying = client
        self.accepting = accepting
    }

    /// Runs one full handshake and closes both sides.
    ///
    /// - Parameter verified: true decides trust with the engine (default handling), false accepts.
    /// - Returns: whether the client ended up connected (always true for a good fixture).
    @discardableResult
    public func handshake(verified: Bool) async throws -> Bool {
        let (clientSide, serverSide) = MemoryTransport.makePair()
        let backend = backend, server = server
        async let accepted = TLSConnection.accept(over: serverSide, configuration: server, backend: backend)
        let client = try await TLSConnection.connect(over: clientSide, host: "www.example.com",
                                                     configuration: verified ? verifying : accepting, backend: backend)
        let serverConnection = try await accepted
        let ok = client.negotiatedVersion == version
        await client.close()
        await serverConnection.close()
        return ok
    }
}
