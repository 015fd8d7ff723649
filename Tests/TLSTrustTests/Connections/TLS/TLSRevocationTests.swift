import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Revocation decided inside the handshake: the client asks for a stapled OCSP
/// response, the engine judges it with the chain, and a server whose certificate is revoked is
/// refused before the client sends anything — on every stapling backend, TLS 1.2 and 1.3, against
/// real servers (`openssl s_server -status_file`, `gnutls-serv --ocsp-response`, nginx
/// `ssl_stapling_file`). A backend that cannot staple (mbedTLS 2.28) is judged without a staple.
@Suite("TLS: revocation in the handshake")
struct TLSRevocationTests {
    typealias Stapling = TLSStaplingTests

    /// Writes an OCSP response about `pki`'s leaf, signed by its issuer, to `directory`.
    static func staple(_ status: OCSPResponseBuilder.CertStatus, _ pki: TestHierarchy, in directory: TemporaryDirectory) throws -> URL {
        let file = directory.file("staple-\(UUID().uuidString).der")
        try Data(try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate, status: status)).write(to: file)
        return file
    }

    static func hardFail(_ pki: TestHierarchy, version: TLSVersion) -> TLSClientConfiguration {
        var configuration = Stapling.client(pki, version: version, requests: false)
        configuration.revocation = RevocationPolicy(mode: .hard, scope: .leafOnly)
        return configuration
    }

    @Test("A stapled good answer is trusted", arguments: Stapling.serversAndVersions)
    func stapledGood(server: Stapling.ExternalServer, version: TLSVersion) async throws {
        let pki = try await Stapling.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-tls-revocation")
        let good = try Self.staple(.good, pki, in: directory)
        try await TLSOpenSSLTests.withPeer({ try Stapling.start(server, pki, staple: good) }) { peer in
            for name in Stapling.staplingNames {
                let backend = try TLSMatrixTests.backend(name)
                let (connection, reply, _) = try await Stapling.get(backend, port: peer.port, Self.hardFail(pki, version: version))
                #expect(reply.contains(" 200 "), "\(name), \(server.rawValue), \(version): \(reply.prefix(120))")
                let record = connection.context.evaluation?.revocation.first
                #expect(record?.status == .good && record?.source == .stapledOCSPResponse, "\(name): \(String(describing: record))")
            }
        }
    }

    /// The servers that staple a response saying revoked as given. gnutls-serv checks what it
    /// staples and refuses to load such a response (`gnutlsServerRefusesARevokedStaple`).
    static let revokedStaplers = Stapling.serversAndVersions.filter { $0.0 != .gnutlsServer }

    @Test("A stapled revoked answer is refused in the handshake", arguments: revokedStaplers)
    func stapledRevoked(server: Stapling.ExternalServer, version: TLSVersion) async throws {
        let pki = try await Stapling.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-tls-revocation")
        let revoked = try Self.staple(.revoked(at: Date(timeIntervalSinceNow: -3600), reason: .keyCompromise), pki, in: directory)
        try await TLSOpenSSLTests.withPeer({ try Stapling.start(server, pki, staple: revoked) }) { peer in
            for name in Stapling.staplingNames {
                let backend = try TLSMatrixTests.backend(name)
                do {
                    _ = try await Stapling.get(backend, port: peer.port, Self.hardFail(pki, version: version))
                    Issue.record("\(name), \(server.rawValue), \(version): a revoked server was trusted")
                } catch let error as TLSError {
                    #expect(error.code == .peerTrustRefused, "\(name): \(error)")
                    let evaluation = (error.underlying as? TrustEvaluationError)?.evaluation
                    #expect(evaluation?.primaryFailure?.code == .revoked, "\(name): \(error)")
                }
            }
        }
    }

    @Test("gnutls-serv refuses to start with a staple that says revoked")
    func gnutlsServerRefusesARevokedStaple() async throws {
        let pki = try await Stapling.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-tls-revocation")
        let revoked = try Self.staple(.revoked(at: Date(timeIntervalSinceNow: -3600), reason: .keyCompromise), pki, in: directory)
        await #expect(throws: (any Error).self) {
            try await TLSOpenSSLTests.blocking {
                let peer = try Stapling.start(.gnutlsServer, pki, staple: revoked)
                peer.stop()
            }
        }
    }

    @Test("No staple: hard-fail refuses, soft-fail connects — the same on a backend that cannot staple")
    func noStaple() async throws {
        let pki = try await Stapling.pki()
        try await TLSOpenSSLTests.withPeer({ try Stapling.start(.opensslServer, pki, staple: nil) }) { peer in
            for name in TestBackends.tlsNames {
                let backend = try TLSMatrixTests.backend(name)
                let version: TLSVersion = backend.supportedTLSVersions.contains(.tls13) ? .tls13 : .tls12
                do {
                    _ = try await Stapling.get(backend, port: peer.port, Self.hardFail(pki, version: version))
                    Issue.record("\(name): hard-fail without an answer connected")
                } catch let error as TLSError {
                    let evaluation = (error.underlying as? TrustEvaluationError)?.evaluation
                    #expect(evaluation?.primaryFailure?.code == .revocationStatusUnknown, "\(name): \(error)")
                }
                var soft = Self.hardFail(pki, version: version)
                soft.revocation.mode = .soft
                let (connection, reply, _) = try await Stapling.get(backend, port: peer.port, soft)
                #expect(reply.contains(" 200 "), "\(name), soft")
                #expect(connection.context.evaluation?.revocation.first?.status == .unknown, "\(name), soft: recorded as unknown")
            }
        }
    }

    @Test("In-process servers staple a revoked answer: every stapling client refuses, on each version",
          arguments: Stapling.inProcessPairs)
    func inProcessRevoked(clientName: String, serverName: String) async throws {
        let client = try TLSMatrixTests.backend(clientName), server = try TLSMatrixTests.backend(serverName)
        let pki = try await Stapling.pki()
        let revoked = try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate, status: .revoked(at: Date(timeIntervalSinceNow: -60)))
        for version in TLSVersion.allCases {
            var serverConfiguration = try TLSMatrixTests.setup(pki, server: server)
            serverConfiguration.minimumVersion = version
            serverConfiguration.maximumVersion = version
            serverConfiguration.stapledOCSPResponse = revoked
            let (c, s) = await TLSMatrixTests.handshake(client: client, clientConfiguration: Self.hardFail(pki, version: version),
                                                        server: server, serverConfiguration: serverConfiguration, host: Stapling.host)
            let what = "\(clientName)→\(serverName) \(version)"
            let error = try #require(TLSMatrixTests.tlsError(c), "\(what): the client must refuse a revoked server")
            #expect(error.code == .peerTrustRefused, "\(what): \(error)")
            #expect((error.underlying as? TrustEvaluationError)?.evaluation.primaryFailure?.code == .revoked, "\(what): \(error)")
            #expect(TLSMatrixTests.tlsError(s) != nil, "\(what): the server never reaches application data")
        }
    }
}
