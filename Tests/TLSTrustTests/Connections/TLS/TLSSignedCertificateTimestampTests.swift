import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// SCTs in the handshake (the `signed_certificate_timestamp` extension, RFC 6962 §3.3) against
/// a real `openssl s_server -serverinfo` on 127.0.0.1: a leaf whose SCTs come only in the
/// handshake, minted at test time. The list reaches the trust decision as the bytes that arrived
/// and the engine judges it (Chrome's policy: 2 TLS SCTs of 2 operators); a garbage list counts
/// for nothing; a client without a CT policy does not ask; a backend that cannot ask fails closed.
@Suite("TLS: SCTs in the handshake")
struct TLSSignedCertificateTimestampTests {
    static let host = TLSStaplingTests.host

    /// Whether a backend's client limited to `version` asks, and so receives: OpenSSL under both,
    /// GnuTLS 3.7 under TLS 1.2 only (it refuses the extension in a TLS 1.3 certificate entry),
    /// mbedTLS 2.28 never.
    static func receives(_ name: String, _ version: TLSVersion) -> Bool {
        TestBackends.tls(name)!.asksForSignedCertificateTimestamps(upTo: version)
    }

    /// The TLS backends whose clients speak `version`, by name.
    static func clients(speaking version: TLSVersion) throws -> [(String, any TLSBackend)] {
        try TestBackends.tlsNames.map { ($0, try TLSMatrixTests.backend($0)) }.filter { $0.1.supportedTLSVersions.contains(version) }
    }

    /// A hierarchy, two logs of two operators and the leaf's two SCTs as a TLS list.
    struct Fixture: Sendable {
        let pki: TestHierarchy
        let logs: CertificateTransparencyLogList
        let list: [UInt8]

        static func make() async throws -> Fixture {
            try await TLSOpenSSLTests.blocking {
                let pki = try TestHierarchy.make(keyAlgorithm: .ecdsaP256, leafDNSNames: [TLSSignedCertificateTimestampTests.host])
                let logA = try TestCTLog(operator: "Operator A"), logB = try TestCTLog(operator: "Operator B")
                let list = SCTListEncoding.list([try logA.sct(forCertificate: pki.leaf.der), try logB.sct(forCertificate: pki.leaf.der)])
                return Fixture(pki: pki, logs: try CertificateTransparencyLogList(logs: [logA.log, logB.log], timestamp: Date()), list: list)
            }
        }

        /// Runs `body` against an `openssl s_server` that presents the hierarchy (limited to
        /// `version` when given) and sends `list` as its SCT list (`-serverinfo`); the list is the
        /// leaf's two SCTs unless another is given.
        func withServer(sending list: [UInt8]? = nil, version: TLSVersion? = nil,
                        _ body: (ExternalTLSPeer) async throws -> Void) async throws {
            let directory = try TemporaryDirectory(prefix: "tlstrust-serverinfo")
            let file = directory.file("serverinfo.pem")
            try ServerInfoFile.writeSignedCertificateTimestamps(list ?? self.list, to: file)
            let pki = pki
            try await TLSOpenSSLTests.withPeer({
                try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version,
                                                  extraArguments: ["-serverinfo", file.path])
            }, body)
        }

        func client(_ version: TLSVersion, policy: Bool = true) -> TLSClientConfiguration {
            var configuration = TLSStaplingTests.client(pki, version: version, requests: false)
            if policy {
                configuration.certificateTransparency = CertificateTransparencyPolicy(logList: logs, rules: .chrome, appliesToCustomAnchors: true)
            }
            return configuration
        }
    }

    @Test("The server's SCT list meets Chrome's policy where the backend receives it, and fails closed where it cannot",
          arguments: TLSVersion.allCases)
    func policyMetByHandshakeSCTs(version: TLSVersion) async throws {
        let fixture = try await Fixture.make()
        try await fixture.withServer { peer in
            for (name, backend) in try Self.clients(speaking: version) {
                let what = "\(name) client, \(version)"
                guard Self.receives(name, version) else {
                    // No list reaches the decision, so two TLS SCTs are missing: refused by the
                    // policy, never let through.
                    var configuration = fixture.client(version)
                    let recorder = TLSStaplingTests.TrustRecorder()
                    configuration.challengeHandler = recorder
                    let error = await #expect(throws: TLSError.self, "\(what)") {
                        _ = try await TLSConnection.connect(host: "127.0.0.1", port: peer.port, configuration: configuration, backend: backend)
                    }
                    #expect(recorder.serverTrusts.count == 1 && recorder.serverTrusts.first?.signedCertificateTimestampList == nil, "\(what)")
                    let failures = error?.evaluation?.failures.map(\.code) ?? []
                    #expect(failures.contains(.certificateTransparencyRequired), "\(what): \(String(describing: error))")
                    continue
                }
                let (connection, reply, recorder) = try await TLSStaplingTests.get(backend, port: peer.port, fixture.client(version))
                #expect(reply.contains(" 200 "), "\(what): \(reply.prefix(200))")
                #expect(connection.context.signedCertificateTimestampList == fixture.list, "\(what)")
                #expect(recorder.serverTrusts.first?.signedCertificateTimestampList == fixture.list, "\(what)")
                let report = connection.context.evaluation?.certificateTransparency
                #expect(report?.isCompliant == true, "\(what): \(String(describing: report))")
                let fromTLS = report?.timestamps.filter { $0.source == .tlsExtension } ?? []
                #expect(fromTLS.count == 2 && fromTLS.allSatisfy(\.isValid), "\(what): \(fromTLS)")
            }
        }
    }

    @Test("With stapling asked for under TLS 1.2 (OpenSSL holds the chain until ServerHelloDone), the held decision sees the list")
    func heldDecisionSeesTheList() async throws {
        let fixture = try await Fixture.make()
        try await fixture.withServer(version: .tls12) { peer in
            for name in TestBackends.tlsNames where Self.receives(name, .tls12) && TestBackends.tls(name)!.supportsOCSPStapling {
                let backend = try TLSMatrixTests.backend(name)
                var configuration = fixture.client(.tls12)
                configuration.requestsOCSPStapling = true
                let (connection, reply, _) = try await TLSStaplingTests.get(backend, port: peer.port, configuration)
                #expect(reply.contains(" 200 "), "\(name): \(reply.prefix(200))")
                #expect(connection.context.signedCertificateTimestampList == fixture.list, "\(name)")
                #expect(connection.context.evaluation?.certificateTransparency?.isCompliant == true, "\(name)")
            }
        }
    }

    @Test("A garbage SCT list arrives as it was sent and counts for nothing: the policy refuses the server")
    func garbageListCountsForNothing() async throws {
        let fixture = try await Fixture.make()
        let garbage: [UInt8] = [0x00, 0x07, 0x00, 0x05, 0xDE, 0xAD, 0xBE, 0xEF, 0x00]
        try await fixture.withServer(sending: garbage, version: .tls12) { peer in
            for name in TestBackends.tlsNames where Self.receives(name, .tls12) {
                let backend = try TLSMatrixTests.backend(name)
                var configuration = fixture.client(.tls12)
                let recorder = TLSStaplingTests.TrustRecorder()
                configuration.challengeHandler = recorder
                let error = await #expect(throws: TLSError.self, "\(name)") {
                    _ = try await TLSConnection.connect(host: "127.0.0.1", port: peer.port, configuration: configuration, backend: backend)
                }
                #expect(recorder.serverTrusts.first?.signedCertificateTimestampList == garbage, "\(name)")
                let report = error?.evaluation?.certificateTransparency
                #expect(report?.isCompliant == false, "\(name): \(String(describing: report))")
                #expect(report?.timestamps.contains { $0.source == .tlsExtension && $0.status == .malformed } == true,
                        "\(name): \(String(describing: report))")
            }
        }
    }

    @Test("Without a CT policy the client does not ask, and the server sends no list", arguments: TLSVersion.allCases)
    func noPolicyNoRequest(version: TLSVersion) async throws {
        let fixture = try await Fixture.make()
        try await fixture.withServer { peer in
            for (name, backend) in try Self.clients(speaking: version) {
                let (connection, reply, recorder) = try await TLSStaplingTests.get(backend, port: peer.port, fixture.client(version, policy: false))
                #expect(reply.contains(" 200 "), "\(name): \(reply.prefix(200))")
                #expect(connection.context.signedCertificateTimestampList == nil, "\(name)")
                #expect(recorder.serverTrusts.first.map { $0.signedCertificateTimestampList == nil } == true, "\(name)")
            }
        }
    }

    @Test("Which backends ask for the extension")
    func backendsSayWhatTheyDo() {
        for name in TestBackends.tlsNames {
            let backend = TestBackends.tls(name)!
            let asks = TLSVersion.allCases.filter { backend.asksForSignedCertificateTimestamps(upTo: $0) }
            switch name {
            case "openssl":
                #expect(backend.supportsSignedCertificateTimestamps && asks == [.tls12, .tls13], "\(name)")
            case "gnutls":
                #expect(backend.supportsSignedCertificateTimestamps && asks == [.tls12], "\(name)")
            default:
                #expect(!backend.supportsSignedCertificateTimestamps && asks.isEmpty, "\(name)")
            }
        }
    }
}
