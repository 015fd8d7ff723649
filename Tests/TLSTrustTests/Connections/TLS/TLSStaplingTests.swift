import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// OCSP stapling (status_request) on the TLS side: the exact bytes a server staples reach the
/// trust decision — the handshake context and the `Trust` a challenge handler receives — on every
/// backend that can staple, under TLS 1.2 and 1.3, against real servers (`openssl s_server
/// -status_file`, `gnutls-serv --ocsp-response`, nginx `ssl_stapling_file`) and the backends' own
/// servers. The responses are real: minted at test time by `openssl ocsp` over a `TestHierarchy`.
/// Judging them is the engine's job; these tests check only that they arrive, in time
/// and intact, and that a backend without stapling says so.
@Suite("TLS: OCSP stapling")
struct TLSStaplingTests {
    static let host = "www.example.com"

    /// The backends whose library staples, and those that cannot.
    static let staplingNames = TestBackends.tlsNames.filter { TestBackends.tls($0)!.supportsOCSPStapling }
    static let nonStaplingNames = TestBackends.tlsNames.filter { !TestBackends.tls($0)!.supportsOCSPStapling }

    /// The real servers, each on TLS 1.2 and 1.3.
    enum ExternalServer: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case opensslServer = "openssl s_server", gnutlsServer = "gnutls-serv", nginx
        var testDescription: String { rawValue }
    }

    static let serversAndVersions: [(ExternalServer, TLSVersion)] = ExternalServer.allCases.flatMap { server in
        TLSVersion.allCases.map { (server, $0) }
    }

    // MARK: Helpers

    /// A real DER OCSPResponse for `pki`'s leaf, status good, signed by its issuer (the
    /// intermediate) as its own responder: `openssl ocsp` with an index file, no network.
    static func ocspResponse(for pki: TestHierarchy, in directory: TemporaryDirectory) throws -> [UInt8] {
        let issuer = directory.file("ocsp-issuer.pem"), issuerKey = directory.file("ocsp-issuer.key")
        let leaf = directory.file("ocsp-leaf.pem"), index = directory.file("index.txt"), out = directory.file("resp.der")
        try TestPKI.writePEM([pki.intermediate], to: issuer)
        try TestPKI.writePEM(pki.intermediate.privateKey, to: issuerKey)
        try TestPKI.writePEM([pki.leaf], to: leaf)
        let serialLine = String(decoding: try TestPKI.openssl(["x509", "-in", leaf.path, "-noout", "-serial"]), as: UTF8.self)
        let serial = serialLine.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "serial=", with: "")
        // index.txt (openssl ca's database): status, expiry, revocation date, serial, file, subject.
        try "V\t491231235959Z\t\t\(serial)\tunknown\t/CN=\(host)\n".write(to: index, atomically: true, encoding: .utf8)
        try TestPKI.openssl(["ocsp", "-index", index.path, "-rsigner", issuer.path, "-rkey", issuerKey.path,
                             "-CA", issuer.path, "-issuer", issuer.path, "-cert", leaf.path,
                             "-respout", out.path, "-ndays", "1", "-no_nonce"])
        let response = try [UInt8](Data(contentsOf: out))
        // Check it is what it claims: openssl reads it back as a successful, good answer.
        let text = String(decoding: try TestPKI.openssl(["ocsp", "-respin", out.path, "-resp_text", "-noverify"]), as: UTF8.self)
        guard text.contains("OCSP Response Status: successful"), text.contains("Cert Status: good") else {
            throw TestPKIError(operation: "openssl ocsp", openSSLErrors: ["unexpected response: \(text)"])
        }
        return response
    }

    /// An OCSPResponse (RFC 6960 §4.2.1) that says "successful" and wraps bytes that are no
    /// BasicOCSPResponse at all: openssl s_server loads it (it parses only the outer layer) and
    /// staples it unchanged; a client must pass it on without crashing.
    static let garbageInsideOCSPResponse: [UInt8] = {
        func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            precondition(content.count < 0x1_0000)
            let length: [UInt8] = content.count < 0x80 ? [UInt8(content.count)]
                : content.count < 0x100 ? [0x81, UInt8(content.count)] : [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xFF)]
            return [tag] + length + content
        }
        let idPkixOCSPBasic: [UInt8] = [0x06, 0x09, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x30, 0x01, 0x01]
        let garbage = Array("this is not a BasicOCSPResponse \u{1}\u{2}\u{3}".utf8) + [0xFF, 0x00, 0x30, 0x82, 0xFF, 0xFF]
        let responseBytes = der(0x30, idPkixOCSPBasic + der(0x04, garbage))
        return der(0x30, der(0x0A, [0x00]) + der(0xA0, responseBytes))
    }()

    /// Records the `Trust` of every server-trust challenge, then answers with default handling
    /// (or with `identity` for a client-certificate challenge).
    final class TrustRecorder: TLSChallengeHandler {
        let seen = Locked<[(TLSAuthenticationMethod, Trust?)]>([])
        let identity: ClientIdentity?
        init(identity: ClientIdentity? = nil) { self.identity = identity }
        var methods: [TLSAuthenticationMethod] { seen.withLock { $0.map(\.0) } }
        var serverTrusts: [Trust] { seen.withLock { $0.compactMap { $0.0 == .serverTrust ? $0.1 : nil } } }
        var clientTrusts: [Trust] { seen.withLock { $0.compactMap { $0.0 == .clientTrust ? $0.1 : nil } } }
        func handle(_ challenge: TLSAuthenticationChallenge) async -> TLSChallengeResponse {
            seen.withLock { $0.append((challenge.protectionSpace.authenticationMethod, challenge.protectionSpace.serverTrust)) }
            if challenge.protectionSpace.authenticationMethod == .clientCertificate, let identity {
                return .useCredential(.identity(identity))
            }
            return .performDefaultHandling
        }
    }

    static func client(_ pki: TestHierarchy, version: TLSVersion, requests: Bool = true) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(serverName: host)
        configuration.anchors = .only([pki.root.certificate])
        configuration.minimumVersion = version
        configuration.maximumVersion = version
        configuration.timeouts = TLSMatrixTests.timeouts
        configuration.requestsOCSPStapling = requests
        return configuration
    }

    static func pki() async throws -> TestHierarchy {
        try await TLSOpenSSLTests.blocking { try TestHierarchy.make(keyAlgorithm: .ecdsaP256, leafDNSNames: [host]) }
    }

    static func start(_ server: ExternalServer, _ pki: TestHierarchy, staple file: URL?) throws -> ExternalTLSPeer {
        switch server {
        case .opensslServer:
            return try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate],
                                                     extraArguments: file.map { ["-status_file", $0.path] } ?? [])
        case .gnutlsServer:
            return try ExternalTLSPeer.gnutlsServer(leaf: pki.leaf, chain: [pki.intermediate],
                                                    extraArguments: file.map { ["--ocsp-response", $0.path] } ?? [])
        case .nginx:
            return try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate],
                                             serverDirectives: file.map { "ssl_stapling on; ssl_stapling_file \($0.path);" } ?? "")
        }
    }

    /// Connects `backend`'s client to 127.0.0.1:`port`, sends a GET and reads the answer: the
    /// connection, what it read, and the handler's record.
    static func get(_ backend: any TLSBackend, port: Int, _ configuration: TLSClientConfiguration)
        async throws -> (TLSConnection, String, TrustRecorder) {
        var configuration = configuration
        let recorder = TrustRecorder()
        configuration.challengeHandler = recorder
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: port, configuration: configuration, backend: backend)
        try await connection.write(Array("GET / HTTP/1.0\r\nHost: \(host)\r\n\r\n".utf8))
        let reply = String(decoding: try await connection.readToEnd(limit: 1 << 20), as: UTF8.self)
        await connection.close()
        return (connection, reply, recorder)
    }

    /// Whether `actual` holds exactly `expected`, with a short account of both (a failed
    /// comparison of whole DER responses would print every byte).
    static func same(_ actual: [[UInt8]]?, _ expected: [[UInt8]]) -> (Bool, Comment) {
        let describe: ([[UInt8]]?) -> String = { $0.map { "\($0.count) response(s) of \($0.map(\.count)) byte(s)" } ?? "no Trust" }
        return (actual == expected, "got \(describe(actual)), expected \(describe(expected))")
    }

    /// What every stapling test checks: the context and the challenge's `Trust` hold `expected`.
    static func expectStapled(_ expected: [[UInt8]], _ connection: TLSConnection, _ recorder: TrustRecorder, _ what: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let (inContext, contextComment) = same(connection.context.stapledOCSPResponses, expected)
        #expect(inContext, "\(what): the context: \(contextComment)", sourceLocation: sourceLocation)
        #expect(recorder.serverTrusts.count == 1, "\(what): one server-trust challenge", sourceLocation: sourceLocation)
        let (inTrust, trustComment) = same(recorder.serverTrusts.first?.stapledOCSPResponses, expected)
        #expect(inTrust, "\(what): the challenge's Trust: \(trustComment)", sourceLocation: sourceLocation)
        #expect(connection.context.evaluation?.isTrusted == true, "\(what): default handling trusted the chain", sourceLocation: sourceLocation)
    }

    // MARK: Real servers

    @Test("The exact response a real server staples reaches the context and the challenge's Trust, on each stapling client",
          arguments: serversAndVersions)
    func realServerStaples(server: ExternalServer, version: TLSVersion) async throws {
        let pki = try await Self.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-stapling")
        let response = try await TLSOpenSSLTests.blocking { try Self.ocspResponse(for: pki, in: directory) }
        try await TLSOpenSSLTests.withPeer({ try Self.start(server, pki, staple: directory.file("resp.der")) }) { peer in
            for name in Self.staplingNames {
                let backend = try TLSMatrixTests.backend(name)
                let what = "\(name) client, \(server.rawValue), \(version)"

                let (asked, reply, recorder) = try await Self.get(backend, port: peer.port, Self.client(pki, version: version))
                #expect(asked.negotiatedVersion == version, "\(what)")
                #expect(reply.contains(" 200 "), "\(what): \(reply.prefix(200))")
                Self.expectStapled([response], asked, recorder, what)
                #expect(recorder.serverTrusts.first?.revocation == .off, "\(what): revocation stays as configured (off)")

                // Revocation on and no explicit request: the client asks all the same, and the
                // Trust carries the configuration's policy for default handling.
                var revocationOn = Self.client(pki, version: version, requests: false)
                revocationOn.revocation = .soft
                let (viaRevocation, _, revocationRecorder) = try await Self.get(backend, port: peer.port, revocationOn)
                let (inContext, contextComment) = Self.same(viaRevocation.context.stapledOCSPResponses, [response])
                #expect(inContext, "\(what), revocation on: \(contextComment)")
                let (inTrust, trustComment) = Self.same(revocationRecorder.serverTrusts.first?.stapledOCSPResponses, [response])
                #expect(inTrust, "\(what), revocation on: \(trustComment)")
                #expect(revocationRecorder.serverTrusts.first?.revocation == .soft, "\(what), revocation on")

                // Not asked: nothing reaches the decision, on every backend alike (GnuTLS 3.7 sends
                // status_request regardless, so its server may staple; the bytes are not handed on).
                let (unasked, _, unaskedRecorder) = try await Self.get(backend, port: peer.port, Self.client(pki, version: version, requests: false))
                Self.expectStapled([], unasked, unaskedRecorder, "\(what), not asked")
            }
        }
    }

    @Test("A real server that staples nothing gives an empty list", arguments: ExternalServer.allCases)
    func realServerStaplesNothing(server: ExternalServer) async throws {
        let pki = try await Self.pki()
        try await TLSOpenSSLTests.withPeer({ try Self.start(server, pki, staple: nil) }) { peer in
            for name in Self.staplingNames {
                for version in TLSVersion.allCases {
                    let (connection, reply, recorder) = try await Self.get(try TLSMatrixTests.backend(name), port: peer.port,
                                                                           Self.client(pki, version: version))
                    #expect(connection.negotiatedVersion == version)
                    #expect(reply.contains(" 200 "), "\(reply.prefix(200))")
                    Self.expectStapled([], connection, recorder, "\(name) client, \(server.rawValue) without a response, \(version)")
                }
            }
        }
    }

    @Test("Garbage inside a stapled OCSPResponse arrives as bytes, byte for byte, and crashes nothing")
    func realServerStaplesGarbage() async throws {
        let pki = try await Self.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-stapling-garbage")
        try Data(Self.garbageInsideOCSPResponse).write(to: directory.file("garbage.der"))
        try await TLSOpenSSLTests.withPeer({ try Self.start(.opensslServer, pki, staple: directory.file("garbage.der")) }) { peer in
            for name in Self.staplingNames {
                for version in TLSVersion.allCases {
                    let (connection, reply, recorder) = try await Self.get(try TLSMatrixTests.backend(name), port: peer.port,
                                                                           Self.client(pki, version: version))
                    #expect(reply.contains(" 200 "), "\(reply.prefix(200))")
                    Self.expectStapled([Self.garbageInsideOCSPResponse], connection, recorder, "\(name) client, garbage, \(version)")
                }
            }
        }
    }

    /// TLS 1.2 puts CertificateStatus after Certificate, and OpenSSL runs its client-certificate
    /// callback before its status callback: the server must still be judged first, with the
    /// stapled response, and the app must not be asked for a certificate for a refused server.
    /// (GnuTLS under TLS 1.3 chooses the certificate before the server's Certificate arrives, with
    /// or without stapling, and sends it only after accepting the server.)
    @Test("Against s_server asking for a client certificate: the server is judged with its staple first; a refused one raises no client-certificate challenge",
          arguments: TLSVersion.allCases)
    func orderingWithCertificateRequest(version: TLSVersion) async throws {
        let pki = try await Self.pki()
        let clientPKI = try await TLSOpenSSLTests.blocking { try TestHierarchy.make(leafDNSNames: ["client.example.com"]) }
        let stranger = try await Self.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-stapling-mtls")
        let response = try await TLSOpenSSLTests.blocking { try Self.ocspResponse(for: pki, in: directory) }
        let p12 = try await TLSOpenSSLTests.blocking { try TestPKI.pkcs12(leaf: clientPKI.leaf, chain: [clientPKI.intermediate], password: "pw") }
        try await TLSOpenSSLTests.withPeer({
            try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], requireClientCertificate: true,
                                              clientCAs: [clientPKI.root], extraArguments: ["-status_file", directory.file("resp.der").path])
        }) { peer in
            for name in Self.staplingNames {
                let backend = try TLSMatrixTests.backend(name)
                let identity = try backend.importPKCS12(p12, password: "pw")
                let what = "\(name) client, \(version)"

                var accepted = Self.client(pki, version: version)
                let recorder = TrustRecorder(identity: identity)
                accepted.challengeHandler = recorder
                let connection = try await TLSConnection.connect(host: "127.0.0.1", port: peer.port, configuration: accepted, backend: backend)
                try await connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
                let reply = String(decoding: try await connection.readToEnd(limit: 1 << 20), as: UTF8.self)
                await connection.close()
                #expect(reply.contains(" 200 "), "\(what): \(reply.prefix(300))")
                // GnuTLS under TLS 1.3 chooses the certificate before it has the server's
                // (the CertificateRequest comes first) and sends it only after accepting it.
                TLSBackendTests.expectServerTrustAndClientCertificate(version == .tls13 ? name : "\(name), TLS 1.2", recorder.methods)
                let (stapled, comment) = Self.same(recorder.serverTrusts.first?.stapledOCSPResponses, [response])
                #expect(stapled, "\(what): \(comment)")
                #expect(connection.context.sentIdentity != nil, "\(what)")

                // The same server, judged untrustworthy (another CA): refused in the handshake, the
                // client-certificate challenge never raised, no certificate sent.
                var refusing = Self.client(stranger, version: version)
                let refusingRecorder = TrustRecorder(identity: identity)
                refusing.challengeHandler = refusingRecorder
                let result = await TLSOpenSSLTests.capture {
                    try await TLSConnection.connect(host: "127.0.0.1", port: peer.port, configuration: refusing, backend: backend)
                }
                let error = await TLSBackendTests.failureOnUse(result)
                #expect(error?.code == .peerTrustRefused, "\(what): \(String(describing: error))")
                if name == "gnutls" && version == .tls13 {
                    #expect(refusingRecorder.methods.last == .serverTrust, "\(what): \(refusingRecorder.methods)")
                } else {
                    #expect(refusingRecorder.methods == [.serverTrust], "\(what): \(refusingRecorder.methods)")
                }
                let (refusedStapled, refusedComment) = Self.same(refusingRecorder.serverTrusts.first?.stapledOCSPResponses, [response])
                #expect(refusedStapled, "\(what): the refused Trust saw the staple: \(refusedComment)")
            }
        }
    }

    // MARK: The backends' own servers

    static let inProcessPairs: [(String, String)] = staplingNames.flatMap { client in staplingNames.map { (client, $0) } }

    /// One in-process handshake at exactly `version`: `server` presents `pki` and staples `staple`;
    /// the client asks for it, trusts `anchorsOf`'s root and has its challenges recorded. The
    /// server's configuration comes back for a second handshake against the same server.
    static func stapledHandshake(client: any TLSBackend, server: any TLSBackend, pki: TestHierarchy, anchorsOf: TestHierarchy,
                                 version: TLSVersion, staple: [UInt8]) async throws
        -> (client: Result<TLSConnection, any Error>, server: Result<TLSConnection, any Error>,
            recorder: TrustRecorder, serverConfiguration: TLSServerConfiguration) {
        var serverConfiguration = try TLSMatrixTests.setup(pki, server: server)
        serverConfiguration.minimumVersion = version
        serverConfiguration.maximumVersion = version
        serverConfiguration.stapledOCSPResponse = staple
        var configuration = Self.client(anchorsOf, version: version)
        let recorder = TrustRecorder()
        configuration.challengeHandler = recorder
        let (c, s) = await TLSMatrixTests.handshake(client: client, clientConfiguration: configuration,
                                                    server: server, serverConfiguration: serverConfiguration, host: Self.host)
        return (c, s, recorder, serverConfiguration)
    }

    @Test("Each stapling backend's server staples the configured bytes — a real response or garbage — to each stapling client",
          arguments: inProcessPairs)
    func inProcessServerStaples(clientName: String, serverName: String) async throws {
        let client = try TLSMatrixTests.backend(clientName), server = try TLSMatrixTests.backend(serverName)
        let pki = try await Self.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-stapling-inprocess")
        let response = try await TLSOpenSSLTests.blocking { try Self.ocspResponse(for: pki, in: directory) }
        let garbage = Array("not an OCSP response at all".utf8)
        for staple in [response, garbage, Self.garbageInsideOCSPResponse] {
            for version in TLSVersion.allCases {
                let (c, s, recorder, serverConfiguration) = try await Self.stapledHandshake(
                    client: client, server: server, pki: pki, anchorsOf: pki, version: version, staple: staple)
                let what = "\(clientName)→\(serverName) \(version), \(staple.count)-byte staple"
                let connection = try c.get(), serverConnection = try s.get()
                Self.expectStapled([staple], connection, recorder, what)
                #expect(serverConnection.context.stapledOCSPResponses.isEmpty, "\(what): a server holds none")
                try await connection.write(Array("ping".utf8))
                #expect(try await serverConnection.read() == Array("ping".utf8), "\(what)")
                await serverConnection.close()
                await connection.close()

                // A client that does not ask is stapled nothing it sees.
                let (quiet, quietServer) = await TLSMatrixTests.handshake(client: client, clientConfiguration: Self.client(pki, version: version, requests: false),
                                                                          server: server, serverConfiguration: serverConfiguration, host: Self.host)
                #expect(try quiet.get().context.stapledOCSPResponses.isEmpty, "\(what), not asked")
                await (try? quietServer.get())?.close()
                await (try? quiet.get())?.close()
            }
        }
    }

    @Test("TLS 1.2, a server asking for a client certificate: the client judges the server, with its staple, before choosing a certificate",
          arguments: inProcessPairs)
    func inProcessOrderingWithCertificateRequest(clientName: String, serverName: String) async throws {
        let client = try TLSMatrixTests.backend(clientName), server = try TLSMatrixTests.backend(serverName)
        let pki = try await Self.pki()
        let clients = try await TLSOpenSSLTests.blocking {
            try TestHierarchy.make(leafDNSNames: ["client.example.com"]) { _ in } customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] }
        }
        let identity = try await TLSBackendTests.identity(clients, on: client)
        let staple = Array("stapled before the certificate request".utf8)
        var serverConfiguration = try TLSMatrixTests.setup(pki, server: server)
        serverConfiguration.maximumVersion = .tls12
        serverConfiguration.clientAuthentication = .required
        serverConfiguration.clientAnchors = .only([clients.root.certificate])
        serverConfiguration.stapledOCSPResponse = staple

        var configuration = Self.client(pki, version: .tls12)
        let recorder = TrustRecorder(identity: identity)
        configuration.challengeHandler = recorder
        let (c, s) = await TLSMatrixTests.handshake(client: client, clientConfiguration: configuration,
                                                    server: server, serverConfiguration: serverConfiguration, host: Self.host)
        let connection = try c.get(), serverConnection = try s.get()
        #expect(recorder.methods == [.serverTrust, .clientCertificate], "\(recorder.methods)")
        #expect(recorder.serverTrusts.first?.stapledOCSPResponses == [staple])
        #expect(serverConnection.peerCertificates.first == clients.leaf.certificate)
        await serverConnection.close()
        await connection.close()

        // Refused: no client-certificate challenge, and the server never gets a certificate.
        var refusing = Self.client(try await Self.pki(), version: .tls12)
        let refusingRecorder = TrustRecorder(identity: identity)
        refusing.challengeHandler = refusingRecorder
        let (rc, rs) = await TLSMatrixTests.handshake(client: client, clientConfiguration: refusing,
                                                      server: server, serverConfiguration: serverConfiguration, host: Self.host)
        #expect(TLSMatrixTests.tlsError(rc)?.code == .peerTrustRefused, "\(rc)")
        #expect(refusingRecorder.methods == [.serverTrust], "\(refusingRecorder.methods)")
        #expect(refusingRecorder.serverTrusts.first?.stapledOCSPResponses == [staple])
        #expect(TLSMatrixTests.tlsError(rs) != nil, "the server's handshake fails too")
    }

    /// Without a CertificateRequest, an OpenSSL client under TLS 1.2 decides in its status
    /// callback (ServerHelloDone): the refusal must still end the handshake there, with TLSTrust's
    /// reason, the staple in view, and the server never reaching application data.
    @Test("A refused server is refused inside the handshake, with its staple in the refused Trust, on each version",
          arguments: inProcessPairs)
    func inProcessRefusalWithStaple(clientName: String, serverName: String) async throws {
        let client = try TLSMatrixTests.backend(clientName), server = try TLSMatrixTests.backend(serverName)
        let pki = try await Self.pki()
        let stranger = try await Self.pki()
        let staple = Array("stapled by a server about to be refused".utf8)
        for version in TLSVersion.allCases {
            let (c, s, recorder, _) = try await Self.stapledHandshake(
                client: client, server: server, pki: pki, anchorsOf: stranger, version: version, staple: staple)
            let what = "\(clientName)→\(serverName) \(version)"
            let error = try #require(TLSMatrixTests.tlsError(c), "\(what): the client must refuse")
            #expect(error.code == .peerTrustRefused, "\(what): \(error)")
            #expect(error.underlying is TrustEvaluationError, "\(what): TLSTrustError's reason wins: \(error)")
            #expect(recorder.methods == [.serverTrust], "\(what)")
            #expect(recorder.serverTrusts.first?.stapledOCSPResponses == [staple], "\(what)")
            let serverError = TLSMatrixTests.tlsError(s)
            #expect(serverError != nil, "\(what): the server's handshake must fail too, not reach data: \(s)")
            if clientName == "openssl" && version == .tls12 {
                // The alert OpenSSL sends when its status callback refuses (docs/tls.md): seen as
                // "bad certificate status response" by OpenSSL, as alert 113 by GnuTLS.
                let text = "\(serverError.map { "\($0)" } ?? "")"
                let words: String? = switch serverName {
                case "openssl": "bad certificate status response"
                case "gnutls": "113"
                default: nil
                }
                if let words {
                    #expect(text.contains(words), "\(what): \(text)")
                } else {
                    Issue.record("\(what): no expectation for how \(serverName)'s server reports the alert: \(text)")
                }
            }
        }
    }

    // MARK: Backends without stapling

    @Test("The capability is stated per backend: OpenSSL and GnuTLS staple, mbedTLS 2.28 does not")
    func capabilities() throws {
        for name in TestBackends.tlsNames {
            let backend = try TLSMatrixTests.backend(name)
            switch name {
            case "openssl", "gnutls": #expect(backend.supportsOCSPStapling, "\(name)")
            case "mbedtls": #expect(!backend.supportsOCSPStapling, "\(name)")
            default: break
            }
        }
    }

    @Test("A backend without stapling refuses an explicit request and a response to staple; with only revocation on it connects unstapled",
          arguments: nonStaplingNames)
    func noStapling(name: String) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try await Self.pki()
        let server = try TLSMatrixTests.backend(try #require(Self.staplingNames.first))
        var serverConfiguration = try TLSMatrixTests.setup(pki, server: server)
        serverConfiguration.stapledOCSPResponse = Array("a staple this client cannot ask for".utf8)

        // Asked explicitly: refused before anything is sent, naming stapling.
        let (explicit, explicitServer) = await TLSMatrixTests.handshake(client: backend, clientConfiguration: Self.client(pki, version: .tls12),
                                                                        server: server, serverConfiguration: serverConfiguration, host: Self.host)
        let error = try #require(TLSMatrixTests.tlsError(explicit))
        #expect(error.code == .unsupported, "\(error)")
        #expect("\(error)".contains("stapling"), "\(error)")
        #expect(TLSMatrixTests.tlsError(explicitServer) != nil, "the server saw no handshake")

        // Revocation on, no explicit request: connects without asking; nothing stapled reaches
        // the decision, which is still made (with the configuration's revocation policy).
        var revocationOnly = Self.client(pki, version: .tls12, requests: false)
        revocationOnly.revocation = .soft
        let recorder = TrustRecorder()
        revocationOnly.challengeHandler = recorder
        let (c, s) = await TLSMatrixTests.handshake(client: backend, clientConfiguration: revocationOnly,
                                                    server: server, serverConfiguration: serverConfiguration, host: Self.host)
        let connection = try c.get()
        #expect(connection.context.stapledOCSPResponses.isEmpty)
        #expect(recorder.methods == [.serverTrust])
        #expect(recorder.serverTrusts.first?.stapledOCSPResponses == [])
        #expect(recorder.serverTrusts.first?.revocation == .soft)
        await (try? s.get())?.close()
        await connection.close()

        // As a server: a response to staple is refused at session creation.
        var ownServer = try TLSMatrixTests.setup(pki, server: backend)
        ownServer.stapledOCSPResponse = Array("x".utf8)
        let (_, refusedServer) = await TLSMatrixTests.handshake(client: server, clientConfiguration: Self.client(pki, version: .tls12, requests: false),
                                                               server: backend, serverConfiguration: ownServer, host: Self.host)
        let serverError = try #require(TLSMatrixTests.tlsError(refusedServer))
        #expect(serverError.code == .unsupported, "\(serverError)")
        #expect("\(serverError)".contains("stapl"), "\(serverError)")
    }

    // MARK: The context

    @Test("verifyPeer keeps the stapled responses and puts them, with the client's revocation policy, into the Trust")
    func contextCarriesStapledResponses() async throws {
        let pki = try await Self.pki()
        let stapled: [[UInt8]] = [Array("leaf's".utf8), Array("intermediate's".utf8)]
        var configuration = Self.client(pki, version: .tls13)
        configuration.revocation = .hard
        let recorder = TrustRecorder()
        configuration.challengeHandler = recorder
        let backend = try TLSMatrixTests.backend(try #require(TestBackends.tlsNames.first))
        let context = TLSHandshakeContext(client: configuration, host: Self.host, port: 443, backend: backend)
        #expect(context.stapledOCSPResponses.isEmpty, "nothing before the decision")
        _ = await TLSMatrixTests.onThread {
            context.verifyPeer(presentedChain: [pki.leaf.der, pki.intermediate.der], protocolVersion: .tls13, stapledOCSPResponses: stapled)
        }
        #expect(context.stapledOCSPResponses == stapled)
        #expect(recorder.serverTrusts.first?.stapledOCSPResponses == stapled)
        #expect(recorder.serverTrusts.first?.revocation == .hard)

        // A server's context: the client's chain comes with no staple and no revocation.
        var serverConfiguration = try TLSMatrixTests.setup(pki, server: backend)
        let serverRecorder = TrustRecorder()
        serverConfiguration.challengeHandler = serverRecorder
        let serverContext = TLSHandshakeContext(server: serverConfiguration, port: 443, backend: backend)
        _ = await TLSMatrixTests.onThread { serverContext.verifyPeer(presentedChain: [pki.leaf.der]) }
        #expect(serverContext.stapledOCSPResponses.isEmpty)
        #expect(serverRecorder.clientTrusts.count == 1)
        #expect(serverRecorder.clientTrusts.first?.stapledOCSPResponses == [])
        #expect(serverRecorder.clientTrusts.first?.revocation == .off)
    }
}
