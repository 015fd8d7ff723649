import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// The core's trust decisions inside a handshake, without a handshake: what a backend's hook gets
/// back from ``TLSHandshakeContext`` for every answer a challenge handler can give.
@Suite("TLS handshake context")
struct TLSHandshakeContextTests {
    static let backend = OpenSSLTrustBackend()

    static func client(_ pki: TestHierarchy, anchors: [TestCertificate]? = nil, host: String = "www.example.com",
                       handler: (any TLSChallengeHandler)? = nil, identity: ClientIdentity? = nil,
                       handshake: Duration = .seconds(5)) -> TLSHandshakeContext {
        var configuration = TLSClientConfiguration()
        configuration.anchors = .only((anchors ?? [pki.root]).map(\.certificate))
        configuration.challengeHandler = handler
        configuration.identity = identity
        let context = TLSHandshakeContext(client: configuration, host: host, port: 443, backend: backend)
        context.deadline = .now + handshake
        return context
    }

    /// Runs a context call on a dispatch thread, as a backend's handshake does: a challenge
    /// handler is async, and the context waits for it, which must never block Swift's cooperative
    /// pool (where tests run).
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await offThePool(body)
    }

    static func presented(_ pki: TestHierarchy) -> [[UInt8]] { [pki.leaf.der, pki.intermediate.der] }

    @Test("Default handling trusts a chain to the configured anchors for the host, and records the evaluation")
    func defaultHandlingTrusts() async throws {
        let pki = try TestHierarchy.make()
        let context = Self.client(pki)
        #expect((await Self.offPool { context.verifyPeer(presentedChain: Self.presented(pki)) }))
        #expect(context.failure == nil)
        #expect(context.evaluation?.isTrusted == true)
        #expect(context.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        #expect(context.challenges == [.serverTrust])
    }

    @Test("Default handling refuses another CA, another host, the other IP family, a trailing-dot SAN trick")
    func defaultHandlingRefuses() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: ["www.example.com"], leafIPAddresses: ["127.0.0.1"])
        let other = try TestHierarchy.make()
        for (context, why) in [
            (Self.client(pki, anchors: [other.root]), "another CA"),
            (Self.client(pki, host: "evil.example.com"), "another host"),
            (Self.client(pki, host: "::ffff:127.0.0.1"), "IPv4-mapped IPv6 for an IPv4 SAN"),
            (Self.client(pki, host: "www.example.com.evil.com"), "suffix trick"),
        ] {
            #expect(!(await Self.offPool { context.verifyPeer(presentedChain: Self.presented(pki)) }), "\(why)")
            let failure = try #require(context.failure, "\(why)")
            #expect(failure.code == .peerTrustRefused, "\(why)")
            #expect(failure.underlying is TrustEvaluationError, "\(why)")
            #expect(failure.evaluation?.isTrusted == false, "\(why)")
        }
        // The one allowed trailing dot on the requested name still matches.
        #expect(Self.client(pki, host: "www.example.com.").verifyPeer(presentedChain: Self.presented(pki)))
    }

    @Test("An empty chain is .noPeerCertificate; an unparsable certificate is refused, never trusted")
    func emptyAndGarbageChains() async throws {
        let pki = try TestHierarchy.make()
        let empty = Self.client(pki)
        #expect(!(await Self.offPool { empty.verifyPeer(presentedChain: []) }))
        #expect(empty.failure?.code == .noPeerCertificate)

        for garbage in [[UInt8](), [0x30, 0x82, 0xFF, 0xFF], Array(pki.leaf.der.dropLast(10)), [UInt8](repeating: 0x41, count: 300)] {
            let context = Self.client(pki)
            #expect(!(await Self.offPool { context.verifyPeer(presentedChain: [garbage, pki.intermediate.der]) }))
            #expect(context.failure?.code == .peerTrustRefused)
        }
        // A good leaf followed by garbage is refused as well: every presented certificate must parse.
        let tail = Self.client(pki)
        #expect(!(await Self.offPool { tail.verifyPeer(presentedChain: [pki.leaf.der, [0x01, 0x02]]) }))
        #expect(tail.failure?.code == .peerTrustRefused)
    }

    @Test("useCredential accepts; cancel with a reason refuses with that reason; cancel alone is .cancelled; reject refuses")
    func handlerDispositions() async throws {
        let pki = try TestHierarchy.make()
        let other = try TestHierarchy.make()
        // useCredential on a chain default handling would refuse: the app decided (as with URLSession).
        let accept = Self.client(other, anchors: [pki.root], handler: ClosureChallengeHandler { challenge in
            .useCredential(.trust(challenge.protectionSpace.serverTrust!))
        })
        #expect((await Self.offPool { accept.verifyPeer(presentedChain: Self.presented(other)) }))

        struct Because: Error, Sendable {}
        let cancelled = Self.client(pki, handler: ClosureChallengeHandler { _ in .cancel(because: Because()) })
        #expect(!(await Self.offPool { cancelled.verifyPeer(presentedChain: Self.presented(pki)) }))
        #expect(cancelled.failure?.code == .peerTrustRefused)
        #expect(cancelled.failure?.underlying is Because)

        let bare = Self.client(pki, handler: ClosureChallengeHandler { _ in .cancel() })
        #expect(!(await Self.offPool { bare.verifyPeer(presentedChain: Self.presented(pki)) }))
        #expect(bare.failure?.code == .cancelled)

        let rejected = Self.client(pki, handler: ClosureChallengeHandler { _ in .rejectProtectionSpace })
        #expect(!(await Self.offPool { rejected.verifyPeer(presentedChain: Self.presented(pki)) }))
        #expect(rejected.failure?.code == .peerTrustRefused)

        // useCredential with an identity is no answer to a trust challenge: refused, not trusted.
        let identity = try Self.backend.importPKCS12(try TestPKI.pkcs12(leaf: pki.leaf, password: "p"), password: "p")
        let confused = Self.client(pki, handler: ClosureChallengeHandler { _ in .useCredential(.identity(identity)) })
        #expect(!(await Self.offPool { confused.verifyPeer(presentedChain: Self.presented(pki)) }))
        #expect(confused.failure?.code == .invalidConfiguration)

        let defaulted = Self.client(other, anchors: [pki.root], handler: ClosureChallengeHandler { _ in .performDefaultHandling })
        #expect(!(await Self.offPool { defaulted.verifyPeer(presentedChain: Self.presented(other)) }))
        #expect(defaulted.failure?.code == .peerTrustRefused)
    }

    @Test("The protection space carries host, port, method and the unevaluated trust with the SSL policy")
    func protectionSpace() async throws {
        let pki = try TestHierarchy.make()
        let seen = Locked<TLSProtectionSpace?>(nil)
        let context = Self.client(pki, host: "www.example.com", handler: ClosureChallengeHandler { challenge in
            seen.withLock { $0 = challenge.protectionSpace }
            return .performDefaultHandling
        })
        #expect((await Self.offPool { context.verifyPeer(presentedChain: Self.presented(pki)) }))
        let space = try #require(seen.withLock { $0 })
        #expect(space.host == "www.example.com")
        #expect(space.port == 443)
        #expect(space.authenticationMethod == .serverTrust)
        #expect(space.serverTrust?.certificates.count == 2)
        #expect(space.serverTrust?.policies.description.contains("www.example.com") == true)
    }

    @Test("A pinning evaluator's refusal reaches the app as a ServerTrustError")
    func evaluatorRefusal() async throws {
        let pki = try TestHierarchy.make()
        let other = try TestHierarchy.make()
        let context = Self.client(pki, handler: TLSChallengeHandlers.evaluator(.publicKeys([other.leaf.certificate.publicKey])))
        #expect(!(await Self.offPool { context.verifyPeer(presentedChain: Self.presented(pki)) }))
        let reason = try #require(context.failure?.underlying as? ServerTrustError)
        #expect(reason.code == .publicKeyPinningFailed)

        let pinnedOK = Self.client(pki, handler: TLSChallengeHandlers.evaluator(.publicKeys([pki.intermediate.certificate.publicKey])))
        #expect((await Self.offPool { pinnedOK.verifyPeer(presentedChain: Self.presented(pki)) }))
    }

    @Test("A handler that does not answer before the handshake deadline is a refusal (.timedOut), not a hang")
    func slowHandler() async throws {
        let pki = try TestHierarchy.make()
        let context = Self.client(pki, handler: ClosureChallengeHandler { _ in
            try? await Task.sleep(for: .seconds(30))
            return .useCredential(.trust(Trust(certificates: [])))
        }, handshake: .milliseconds(300))
        let (trusted, elapsed) = await Self.offPool { () -> (Bool, Duration) in
            let start = ContinuousClock.now
            let trusted = context.verifyPeer(presentedChain: Self.presented(pki))
            return (trusted, ContinuousClock.now - start)
        }
        #expect(!trusted)
        #expect(elapsed < .seconds(5))
        #expect(context.failure?.code == .timedOut)
    }

    @Test("A handler still answers in time when the app has blocked every DispatchQueue.global() worker")
    func handlerStartsWhileDispatchWorkersAreBlocked() async throws {
        let pki = try TestHierarchy.make()
        let context = Self.client(pki, handler: ClosureChallengeHandler { _ in .performDefaultHandling }, handshake: .seconds(3))
        // All of it on one thread off the pool, with no `await` while workers are blocked: on
        // Linux, Swift's cooperative pool is served by the same Dispatch workers, so the test
        // must give them back before it needs the pool again.
        let (trusted, elapsed) = await Self.offPool { () -> (Bool, Duration) in
            // Twice as many blocked jobs as cores, plus two: the non-overcommitting pool behind
            // DispatchQueue.global() (and behind every concurrent queue) runs about one job per
            // core, and starts one more thread a second while they are blocked.
            let release = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let blocked = cores * 2 + 2
            for _ in 0..<blocked {
                DispatchQueue.global().async {
                    started.signal()
                    release.wait()
                }
            }
            defer { for _ in 0..<blocked { release.signal() } }
            for _ in 0..<cores { _ = started.wait(timeout: .now() + 2) }   // the pool is full

            let start = ContinuousClock.now
            let trusted = context.verifyPeer(presentedChain: Self.presented(pki))
            return (trusted, ContinuousClock.now - start)
        }
        #expect(trusted, "\(String(describing: context.failure))")
        #expect(context.failure == nil)
        #expect(elapsed < .seconds(2), "the handler waited \(elapsed) for a thread")
    }

    @Test("Client certificates: default sends the configured identity; the handler chooses, declines or aborts")
    func clientCertificates() async throws {
        let pki = try TestHierarchy.make()
        let identity = try Self.backend.importPKCS12(try TestPKI.pkcs12(leaf: pki.leaf, password: "p"), password: "p")

        let configured = Self.client(pki, identity: identity)
        if case .send(let sent) = await Self.offPool({ configured.clientIdentity(acceptableCANames: nil) }) {
            #expect(sent.certificate == pki.leaf.certificate)
        } else { Issue.record("the configured identity was not sent") }
        let none = Self.client(pki)
        if case .sendNone = await Self.offPool({ none.clientIdentity(acceptableCANames: nil) }) {} else { Issue.record("expected no identity") }

        let names = Locked<[DistinguishedName]?>(nil)
        let choosing = Self.client(pki, handler: ClosureChallengeHandler { challenge in
            names.withLock { $0 = challenge.protectionSpace.distinguishedNames }
            return .useCredential(.identity(identity))
        })
        let names0 = [pki.root.certificate.subject.derEncoded, [0xFF]]
        guard case .send = await Self.offPool({ choosing.clientIdentity(acceptableCANames: names0) }) else {
            Issue.record("the handler's identity was not sent"); return
        }
        // The malformed name is dropped, the good one is parsed.
        #expect(names.withLock { $0 } == [pki.root.certificate.subject])
        #expect(choosing.sentIdentity?.certificate == pki.leaf.certificate)

        let rejecting = Self.client(pki, handler: ClosureChallengeHandler { _ in .rejectProtectionSpace }, identity: identity)
        if case .sendNone = await Self.offPool({ rejecting.clientIdentity(acceptableCANames: nil) }) {} else { Issue.record("reject should send none") }
        let cancelling = Self.client(pki, handler: ClosureChallengeHandler { _ in .cancel() }, identity: identity)
        if case .abort = await Self.offPool({ cancelling.clientIdentity(acceptableCANames: nil) }) {} else { Issue.record("cancel should abort") }
        #expect(cancelling.failure?.code == .cancelled)
    }

    @Test("DistinguishedName(derEncoded:) reads a Name and refuses anything else")
    func distinguishedNames() async throws {
        let pki = try TestHierarchy.make()
        let name = try DistinguishedName(derEncoded: pki.root.certificate.subject.derEncoded)
        #expect(name == pki.root.certificate.subject)
        for bad: [UInt8] in [[], [0x30], [0x31, 0x00], pki.root.certificate.subject.derEncoded + [0]] {
            #expect(throws: TLSTrustError.self) { try DistinguishedName(derEncoded: bad) }
        }
    }
}
