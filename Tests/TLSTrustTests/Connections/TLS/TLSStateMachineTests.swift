import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The core's TLS state machine, driven by a scripted library role that does what a hostile or
/// broken library could: report nothing, report twice, fail after a transport error, never finish.
/// The rules hold whatever the role does; the real libraries are in `TLSBackendTests` and
/// `TLSMatrixTests`.
@Suite("TLS state machine: the rules whatever the library does")
struct TLSStateMachineTests {
    /// A library role whose handshake is a script over the link; it records what the core told it.
    final class ScriptedRole: TLSConnectionRole, @unchecked Sendable {
        let link: TLSSessionLink
        var script: (TLSSessionLink) throws -> Bool
        var chainKept: [[UInt8]] = []
        var alertsSent: [TLSAlert] = []
        var closeNotifies = 0
        var releases = 0

        init(link: TLSSessionLink, script: @escaping (TLSSessionLink) throws -> Bool) {
            self.link = link
            self.script = script
        }

        func stepHandshake() throws -> Bool { try script(link) }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { 0 }
        func write(_ bytes: UnsafeRawBufferPointer) throws -> Int { bytes.count }
        func sendFatalAlert(_ alert: TLSAlert) { alertsSent.append(alert) }
        func sendCloseNotify() { closeNotifies += 1 }
        func release() { releases += 1 }
        var negotiated: TLSNegotiatedParameters {
            TLSNegotiatedParameters(version: .tls12, cipherSuite: "scripted", applicationProtocol: nil, isResumed: false)
        }
        var peerChainAfterHandshake: [[UInt8]] { chainKept }
    }

    /// The scripted backend's own private-key handle: any other key type is another backend's.
    final class ScriptedKey: PrivateKeyHandle {
        let publicKey: PublicKey
        init(publicKey: PublicKey) { self.publicKey = publicKey }
    }

    /// A TLS backend whose connections are scripted; keys and signatures are OpenSSL's.
    struct ScriptedBackend: TLSLibraryBackend {
        let crypto = OpenSSLTrustBackend()
        let script: @Sendable (TLSSessionLink) throws -> Bool
        let made = Locked<ScriptedRole?>(nil)

        var name: String { "scripted" }
        var libraryVersion: String { crypto.libraryVersion }
        var providerIdentity: ProviderIdentity { ProviderIdentity(wrapping: crypto.providerIdentity, in: Self.self) }
        var signatureAlgorithms: SupportedSignatureAlgorithms { crypto.signatureAlgorithms }
        func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey { try crypto.importPublicKey(key) }
        var supportedTLSVersions: Set<TLSVersion> { [.tls12] }
        var reportsAcceptableCANames: Bool { true }
        var supportsOCSPStapling: Bool { false }
        var privateKeyType: any PrivateKeyHandle.Type { ScriptedKey.self }

        func makeConnection(_ link: TLSSessionLink) throws -> any TLSConnectionRole {
            let role = ScriptedRole(link: link, script: script)
            made.withLock { $0 = role }
            return role
        }
    }

    /// A client session over one end of an in-memory pipe (the other end returned too), and the
    /// role the backend made for it.
    static func client(_ pki: TestHierarchy, configure: (inout TLSClientConfiguration) -> Void = { _ in },
                       script: @escaping @Sendable (TLSSessionLink) throws -> Bool) throws
        -> (TLSStateMachine, ScriptedRole, TLSHandshakeContext, MemoryTransport) {
        let backend = ScriptedBackend(script: script)
        var configuration = TLSClientConfiguration()
        configuration.anchors = .only([pki.root.certificate])
        configure(&configuration)
        let (near, far) = MemoryTransport.makePair()
        let context = TLSHandshakeContext(client: configuration, host: "www.example.com", port: 443, backend: backend)
        context.deadline = .now + .seconds(5)
        let session = try TLSStateMachine(client: configuration, context: context, transport: near, backend: backend)
        return (session, try #require(backend.made.withLock { $0 }), context, far)
    }

    /// Runs the handshake off Swift's cooperative pool, as a connection does.
    static func handshake(_ session: TLSStateMachine) async -> TLSError? {
        let box = UncheckedBox(session)
        return await offThePool { () -> TLSError? in
            do { try box.value.handshake(); return nil } catch { return error as? TLSError ?? TLSError(.handshakeFailed, "\(error)") }
        }
    }

    static func presented(_ pki: TestHierarchy) -> [[UInt8]] { [pki.leaf.der, pki.intermediate.der] }

    /// A client session whose handshake has run: its error (nil when it completed), the session,
    /// the role and the context.
    static func handshaken(_ pki: TestHierarchy, configure: (inout TLSClientConfiguration) -> Void = { _ in },
                           script: @escaping @Sendable (TLSSessionLink) throws -> Bool) async throws
        -> (error: TLSError?, session: TLSStateMachine, role: ScriptedRole, context: TLSHandshakeContext) {
        let (session, role, context, _) = try client(pki, configure: configure, script: script)
        return (await handshake(session), session, role, context)
    }

    @Test("A handshake that completes without the library reporting a chain is judged on the chain the library kept")
    func judgedAfterAHookThatNeverRan() async throws {
        let pki = try TestHierarchy.make()
        let run = try await Self.handshaken(pki) { _ in true }
        #expect(run.error?.code == .noPeerCertificate, "\(String(describing: run.error))")
        #expect(run.session.state == .failed)
        #expect(run.context.challenges == [.serverTrust])
        #expect(run.role.alertsSent == [.badCertificate])
        var byte: UInt8 = 0
        #expect(throws: TLSError.self) { try withUnsafeMutableBytes(of: &byte) { try run.session.read(into: $0) } }

        let (trusted, trustedRole, _, _) = try Self.client(pki) { _ in true }
        trustedRole.chainKept = Self.presented(pki)
        #expect(await Self.handshake(trusted) == nil)
        #expect(trusted.state == .established)
    }

    @Test("A chain reported twice is decided once: a second report, even of a trusted chain, gets the first answer")
    func decidedOnce() async throws {
        let pki = try TestHierarchy.make()
        let stranger = try TestHierarchy.make()
        let answers = Locked<[Bool]>([])
        let run = try await Self.handshaken(pki) { link in
            let first = link.peerPresented(Self.presented(stranger), protocolVersion: .tls12)
            let second = link.peerPresented(Self.presented(pki), protocolVersion: .tls12)
            answers.withLock { $0 = [first, second] }
            if !second { throw TLSLibraryFailure(.stoppedByCore, "the hook failed") }
            return true
        }
        #expect(answers.withLock { $0 } == [false, false])
        #expect(run.error?.code == .peerTrustRefused, "\(String(describing: run.error))")
        #expect(run.error?.evaluation?.primaryFailure?.code == .unknownIssuer)
        #expect(run.context.challenges == [.serverTrust])
        #expect(run.role.alertsSent == [.badCertificate])
    }

    @Test("TLSTrust's reason wins over the transport's error, and the transport's over the library's words")
    func whichErrorWins() async throws {
        let pki = try TestHierarchy.make()
        let stranger = try TestHierarchy.make()
        // The peer has gone: the library's send fails, and it reports something else.
        let (session, role, _, far) = try Self.client(pki) { link in
            _ = [UInt8](repeating: 22, count: 5).withUnsafeBytes { link.channel.send($0) }
            throw TLSLibraryFailure(.other, "the library's own words")
        }
        far.close()
        let error = await Self.handshake(session)
        #expect(error?.code == .connectionClosed, "\(String(describing: error))")
        #expect(role.alertsSent.isEmpty, "no alert into a transport that failed")

        let (refused, _, _, gone) = try Self.client(pki) { link in
            _ = link.peerPresented(Self.presented(stranger), protocolVersion: .tls12)
            _ = [UInt8](repeating: 21, count: 7).withUnsafeBytes { link.channel.send($0) }
            throw TLSLibraryFailure(.other, "the library's own words")
        }
        gone.close()
        let refusal = await Self.handshake(refused)
        #expect(refusal?.code == .peerTrustRefused, "\(String(describing: refusal))")
    }

    @Test("A server's refusing alert is .clientCertificateRejected only after the server asked for a certificate")
    func clientCertificateRefusal() async throws {
        let pki = try TestHierarchy.make()
        for asked in [false, true] {
            let run = try await Self.handshaken(pki) { link in
                guard link.peerPresented(Self.presented(pki), protocolVersion: .tls12) else { return true }
                if asked {
                    guard case .sendNone = link.certificateRequested(acceptableCANames: [], protocolVersion: .tls12,
                                                                       keyType: ScriptedKey.self) else { return true }
                }
                throw TLSLibraryFailure(.alertReceived(.certificateRequired), "scripted")
            }
            #expect(run.error?.code == (asked ? .clientCertificateRejected : .handshakeFailed), "asked: \(asked): \(String(describing: run.error))")
            #expect("\(String(describing: run.error))".contains("certificate_required"))
        }
    }

    @Test("A cancelled certificate request ends the handshake with handshake_failure and TLSTrust's reason")
    func cancelledCertificateRequest() async throws {
        let pki = try TestHierarchy.make()
        let run = try await Self.handshaken(pki, configure: {
            $0.challengeHandler = ClosureChallengeHandler { challenge in
                challenge.protectionSpace.authenticationMethod == .clientCertificate ? .cancel() : .performDefaultHandling
            }
        }) { link in
            guard link.peerPresented(Self.presented(pki), protocolVersion: .tls12) else { return true }
            guard case .abort = link.certificateRequested(acceptableCANames: nil, protocolVersion: .tls12,
                                                          keyType: ScriptedKey.self) else { return true }
            throw TLSLibraryFailure(.stoppedByCore, "scripted")
        }
        #expect(run.error?.code == .cancelled, "\(String(describing: run.error))")
        #expect(run.role.alertsSent == [.handshakeFailure])
    }

    @Test("A library that never completes its handshake is stopped by the step budget")
    func stepBudget() async throws {
        let run = try await Self.handshaken(try TestHierarchy.make()) { _ in false }
        #expect(run.error?.code == .handshakeFailed, "\(String(describing: run.error))")
        #expect(run.error?.message.contains("steps") == true)
        #expect(run.session.state == .failed)
    }

    @Test("close_notify only after a completed handshake; the library's state is freed once")
    func closing() async throws {
        let pki = try TestHierarchy.make()
        let failed = try await Self.handshaken(pki) { _ in true }
        failed.session.shutdown()
        failed.session.shutdown()
        #expect(failed.role.closeNotifies == 0)
        #expect(failed.role.releases == 1)

        let run = try await Self.handshaken(pki) { link in link.peerPresented(Self.presented(pki), protocolVersion: .tls12) }
        #expect(run.error == nil)
        #expect(throws: TLSError.self) { try run.session.handshake() }
        run.session.shutdown()
        run.session.shutdown()
        #expect(run.role.closeNotifies == 1)
        #expect(run.role.releases == 1)
        #expect(run.session.state == .closed)
        #expect(throws: TLSError.self) { try [UInt8]([1]).withUnsafeBytes { try run.session.write($0) } }
    }

    /// A server session on the scripted backend (TLS 1.2 only), and the client's end of its pipe.
    static func server(_ pki: TestHierarchy, script: @escaping @Sendable (TLSSessionLink) throws -> Bool) throws
        -> (TLSStateMachine, ScriptedRole, MemoryTransport) {
        let backend = ScriptedBackend(script: script)
        let identity = try ClientIdentity(certificate: pki.leaf.certificate, certificateChain: [],
                                          privateKey: ScriptedKey(publicKey: pki.leaf.certificate.publicKey))
        let configuration = TLSServerConfiguration(identity: identity)
        let (near, far) = MemoryTransport.makePair()
        let context = TLSHandshakeContext(server: configuration, port: 0, backend: backend)
        context.deadline = .now + .seconds(5)
        let session = try TLSStateMachine(server: configuration, context: context, transport: near, backend: backend)
        return (session, try #require(backend.made.withLock { $0 }), far)
    }

    /// A ClientHello record offering `supportedVersions` (none: no extension) after `legacyVersion`.
    static func clientHello(legacyVersion: Int = 0x0303, supportedVersions: [Int]?) -> [UInt8] {
        func two(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }
        var body = two(legacyVersion) + [UInt8](repeating: 7, count: 32) + [0] + two(2) + [0x13, 0x01] + [1, 0]
        if let supportedVersions {
            let list = supportedVersions.flatMap(two)
            let entry = two(43) + two(list.count + 1) + [UInt8(list.count)] + list
            body += two(entry.count) + entry
        }
        let message = [1, 0] + two(body.count) + body
        return [22, 3, 1] + two(message.count) + message
    }

    @Test("A ClientHello offering no version the server accepts is refused with protocol_version before the library sees it")
    func offeredVersions() async throws {
        let pki = try TestHierarchy.make()
        for (what, hello) in [("TLS 1.3 only, with a GREASE value", Self.clientHello(supportedVersions: [0x0a0a, 0x0304])),
                              ("TLS 1.1 and lower, no extension", Self.clientHello(legacyVersion: 0x0302, supportedVersions: nil))] {
            let stepped = Locked(false)
            let (session, _, far) = try Self.server(pki) { _ in stepped.withLock { $0 = true }; return true }
            try hello.withUnsafeBytes { try far.send($0, deadline: .now + .seconds(1)) }
            let error = await Self.handshake(session)
            #expect(error?.code == .handshakeFailed, "\(what): \(String(describing: error))")
            #expect(error?.message.contains("protocol_version") == true, "\(what)")
            #expect(!stepped.withLock { $0 }, "\(what): the library saw the ClientHello")
            var alert = [UInt8](repeating: 0, count: 7)
            let count = try alert.withUnsafeMutableBytes { try far.receive(into: $0, deadline: .now + .seconds(1)) }
            #expect(Array(alert[..<count]) == [21, 3, 1, 0, 2, 2, 70], "\(what)")
        }
    }

    @Test("What the server's library receives is exactly what arrived, whether or not the core could read a ClientHello in it")
    func readAheadIsHandedOn() async throws {
        let pki = try TestHierarchy.make()
        let garbage = Array("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8)
        for sent in [Self.clientHello(supportedVersions: [0x0304, 0x0303]), Self.clientHello(supportedVersions: nil), garbage,
                     [22, 3, 1, 0xff, 0xff, 1, 2, 3]] {  // the last: a record longer than TLS allows
            let received = Locked<[UInt8]>([])
            let (session, _, far) = try Self.server(pki) { link in
                var buffer = [UInt8](repeating: 0, count: 100_000)
                while received.withLock({ $0.count }) < sent.count,
                      let n = buffer.withUnsafeMutableBytes({ link.channel.receive(into: $0) }), n > 0 {
                    received.withLock { $0 += buffer[..<n] }
                }
                return true
            }
            try sent.withUnsafeBytes { try far.send($0, deadline: .now + .seconds(1)) }
            #expect(await Self.handshake(session) == nil)
            #expect(received.withLock { $0 } == sent)
        }
    }

    @Test("Settings are checked before a library sees them: versions, stapling, a foreign identity")
    func settings() throws {
        let pki = try TestHierarchy.make()
        let failures: [(String, (inout TLSClientConfiguration) -> Void, TLSError.Code)] = [
            ("TLS 1.3 only", { $0.minimumVersion = .tls13 }, .unsupported),
            ("stapling asked of a library without it", { $0.requestsOCSPStapling = true }, .unsupported),
            ("an empty ALPN name", { $0.applicationProtocols = [""] }, .invalidConfiguration),
        ]
        for (what, configure, code) in failures {
            let error = #expect(throws: TLSError.self, "\(what)") { _ = try Self.client(pki, configure: configure) { _ in true } }
            #expect(error?.code == code, "\(what): \(String(describing: error))")
        }
        let gnutls = try #require(TestBackends.tls("gnutls"), "a second TLS backend")
        let foreign = try gnutls.importPKCS12(try TestPKI.pkcs12(leaf: pki.leaf, password: "pw"), password: "pw")
        let error = #expect(throws: TLSError.self) { _ = try Self.client(pki, configure: { $0.identity = foreign }) { _ in true } }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("holds a key another backend imported") == true, "\(String(describing: error))")
        #expect(error?.message.contains("import it with the scripted backend") == true, "\(String(describing: error))")
    }
}

@Suite("TLS alerts and ALPN lists, decided once")
struct TLSAlertTests {
    @Test("RFC 8446 names and numbers")
    func names() {
        #expect(TLSAlert.badCertificate.rawValue == 42)
        #expect(TLSAlert.badCertificate.name == "bad_certificate")
        #expect(TLSAlert.certificateRequired.name == "certificate_required")
        #expect(TLSAlert.protocolVersion.rawValue == 70)
        #expect(TLSAlert.noApplicationProtocol.name == "no_application_protocol")
        #expect(TLSAlert(rawValue: 255).name == "alert 255")
        #expect("\(TLSAlert.unknownCA)" == "unknown_ca")
    }

    @Test("The one list of alerts by which a server refuses a client's certificate")
    func clientCertificateRefusals() {
        let refusals = (0...255).map { TLSAlert(rawValue: UInt8($0)) }.filter(\.refusesClientCertificate)
        #expect(refusals == [.handshakeFailure, .noCertificate, .badCertificate, .unsupportedCertificate, .certificateRevoked,
                             .certificateExpired, .certificateUnknown, .unknownCA, .accessDenied, .certificateRequired])
        #expect(!TLSAlert.internalError.refusesClientCertificate)
        #expect(!TLSAlert.protocolVersion.refusesClientCertificate)
    }

    @Test("ALPN wire format, and the names no library could send")
    func applicationProtocols() throws {
        let list = try TLSApplicationProtocols(["h2", "http/1.1"])
        #expect(list.wireFormat == [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8))
        #expect(try TLSApplicationProtocols([]).isEmpty)
        for bad in [[""], [String(repeating: "a", count: 256)], ["h2\u{0}"], (0..<300).map { _ in String(repeating: "x", count: 255) }] {
            let error = #expect(throws: TLSError.self) { _ = try TLSApplicationProtocols(bad) }
            #expect(error?.code == .invalidConfiguration)
        }
        #expect(try TLSApplicationProtocols([String(repeating: "a", count: 255)]).wireFormat.count == 256)
    }

    @Test("A server chooses its own most preferred protocol that the client offers; a malformed offer is read up to its first bad entry")
    func select() throws {
        let server = try TLSApplicationProtocols(["h2", "http/1.1"])
        func choice(_ offered: [UInt8]) -> [UInt8]? {
            offered.withUnsafeBufferPointer { buffer in server.select(offered: buffer).map { Array(buffer[$0]) } }
        }
        let http11 = [8] + Array("http/1.1".utf8), h2 = [2] + Array("h2".utf8), spdy = [6] + Array("spdy/3".utf8)
        #expect(choice(http11 + h2) == Array("h2".utf8))
        #expect(choice(spdy + http11) == Array("http/1.1".utf8))
        #expect(choice(spdy) == nil)
        #expect(choice([]) == nil)
        #expect(choice(http11 + [40, 104, 50]) == Array("http/1.1".utf8), "an entry that overruns the list is not read")
        #expect(choice([0] + h2) == nil, "an empty entry ends the list")
        #expect(choice([3] + Array("h2h".utf8)) == nil, "a longer name that starts with a known one is another name")
    }

    @Test("A plaintext fatal alert as the last record received is read as the peer's alert; nothing else is")
    func plaintextAlert() async throws {
        let cases: [([UInt8], TLSAlert?)] = [
            ([21, 3, 3, 0, 2, 2, 42], .badCertificate),
            ([22, 3, 1, 0, 5, 1, 2, 3, 4, 5] + [21, 3, 3, 0, 2, 2, 48], .unknownCA),
            ([21, 3, 3, 0, 2, 1, 0], nil),              // a warning
            ([23, 3, 3, 0, 2, 2, 42], nil),             // application data
            ([21, 3, 3, 0, 2, 2, 42, 23], nil),         // not the last record
            ([21, 3, 3, 0, 2, 2], nil),                 // cut short
        ]
        for (bytes, expected) in cases {
            let pki = try TestHierarchy.make()
            let seen = Locked<TLSAlert?>(nil)
            let (session, _, _, far) = try TLSStateMachineTests.client(pki) { link in
                var buffer = [UInt8](repeating: 0, count: 64)
                var total = 0
                while total < bytes.count, let n = buffer.withUnsafeMutableBytes({ link.channel.receive(into: UnsafeMutableRawBufferPointer(rebasing: $0[total...])) }), n > 0 {
                    total += n
                }
                seen.withLock { $0 = link.channel.plaintextFatalAlert }
                throw TLSLibraryFailure(.other, "cannot decrypt")
            }
            try bytes.withUnsafeBytes { try far.send($0, deadline: .now + .seconds(1)) }
            let error = await TLSStateMachineTests.handshake(session)
            #expect(seen.withLock { $0 } == expected, "\(bytes)")
            if let expected {
                #expect("\(String(describing: error))".contains("the fatal alert \(expected) during the handshake"), "\(bytes)")
            } else {
                #expect(error?.message == "cannot decrypt", "\(bytes)")
            }
        }
    }
}
