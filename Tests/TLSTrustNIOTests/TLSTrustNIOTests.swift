#if NIO
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import TLSTrust
import TLSTrustNIO
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// TLSTrustNIO against a real swift-nio-ssl server on 127.0.0.1.
@Suite("TLSTrustNIO: swift-nio-ssl verification by TLSTrust, over real connections")
struct TLSTrustNIOTests {
    let world = NIOWorld.shared

    @Test("The genuine server is accepted; the app gets TLSTrust's decision, and the validated chain as metadata")
    func genuineServerAccepted() async throws {
        let world = world
        try await TestTLSServer.with(presenting: world.real.chain) { server in
            let outcome = try await tlsTrustHandshake(port: server.port, verifier: world.verifier())
            #expect(outcome.handshakeCompleted)
            #expect(outcome.error == nil)
            let decision = try #require(outcome.trustedDecision)
            #expect(decision.host == NIOWorld.host)
            #expect(decision.evaluator == "DefaultTrustEvaluator")
            #expect(decision.backendName == NIOTestBackend.backend.name)
            #expect(decision.validatedChain?.certificates == [world.real.leaf, world.real.intermediate, world.real.root].certificates)
            // swift-nio-ssl's peerValidatedCertificateChain is TLSTrust's validated chain (the anchor included).
            #expect(outcome.peerValidatedChain == [world.real.leaf.der, world.real.intermediate.der, world.real.root.der])
            #expect(outcome.record?.decision?.host == NIOWorld.host)
            #expect(outcome.record?.failure == nil)
        }
    }

    @Test("A chain from another CA is refused (defaultEvaluationFailed), with TLSTrust's reason as the app's error")
    func forgedChainRefused() async throws {
        let world = world
        try await TestTLSServer.with(presenting: world.rogue.chain) { server in
            let outcome = try await tlsTrustHandshake(port: server.port, verifier: world.verifier())
            #expect(!outcome.handshakeCompleted)
            let failure = try #require(outcome.failure, "the app's error: \(String(describing: outcome.error))")
            #expect(failure.serverTrustError?.code == .defaultEvaluationFailed)
            #expect(failure.host == NIOWorld.host)
            // swift-nio-ssl's own error is kept, and is the bare handshake failure.
            #expect(failure.handshakeError is NIOSSLError)
            #expect(outcome.record?.failure?.serverTrustError?.code == .defaultEvaluationFailed)
        }
    }

    @Test("A pin mismatch is refused, and the app can read TLSTrust's reason: error, user event and record")
    func pinMismatchReasonVisible() async throws {
        let world = world
        let otherKey = world.rogue.leaf.certificate.publicKey
        try await TestTLSServer.with(presenting: world.real.chain) { server in
            let outcome = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(.publicKeys([otherKey])))
            #expect(!outcome.handshakeCompleted)
            let failure = try #require(outcome.failure, "the app's error: \(String(describing: outcome.error))")
            let error = try #require(failure.serverTrustError)
            #expect(error.code == .publicKeyPinningFailed)
            #expect(error.expectedPins == [otherKey.pin])
            #expect(failure.reason.contains("publicKeyPinningFailed"))
            #expect(failure.reason.contains("no pinned public key"))
            #expect("\(failure)".contains("swift-nio-ssl"))
            // The user event came first, with the same refusal.
            #expect(outcome.refusedEvent?.serverTrustError?.code == .publicKeyPinningFailed)
            // And the record, readable from anywhere after the connection closed.
            #expect(outcome.record?.failure?.serverTrustError?.code == .publicKeyPinningFailed)
            #expect(outcome.record?.decision == nil)
        }
    }

    @Test("A pinned intermediate key is accepted, with the match as evidence")
    func pinMatchAccepted() async throws {
        let world = world
        let pinned = world.real.intermediate.certificate.publicKey
        try await TestTLSServer.with(presenting: world.real.chain) { server in
            let outcome = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(.publicKeys([pinned])))
            let decision = try #require(outcome.trustedDecision)
            #expect(decision.pinMatch?.pin == pinned.pin)
            #expect(decision.pinMatch?.chainIndex == 1)
        }
    }

    @Test("A ServerTrustManager picks the evaluator by host; a host it does not know is refused")
    func serverTrustManager() async throws {
        let world = world
        let manager = try ServerTrustManager(evaluators: [
            "**.example.com": PublicKeysTrustEvaluator(keys: [world.real.root.certificate.publicKey]),
        ])
        try await TestTLSServer.with(presenting: world.real.chain) { server in
            let accepted = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(manager))
            #expect(try #require(accepted.trustedDecision).reason.contains("rule '**.example.com'"))

            let strict = try ServerTrustManager(evaluators: ["other.example.org": .default])
            let refused = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(strict))
            #expect(refused.failure?.serverTrustError?.code == .noEvaluatorForHost)
        }
    }

    @Test("Trap: swift-nio-ssl's host check accepts an IP SAN for a DNS name; TLSTrust's check decides and refuses")
    func ipSANForDNSNameRefused() async throws {
        let world = world
        let chain = [world.ipOnly, world.real.intermediate]
        try await TestTLSServer.with(presenting: chain) { server in
            // The trap, shown: plain swift-nio-ssl (full verification, the real root trusted)
            // accepts a certificate that names only 127.0.0.1 for "api.example.com".
            var plain = TLSConfiguration.makeClientConfiguration()
            plain.trustRoots = .certificates([try NIOSSLCertificate(bytes: world.real.root.der, format: .der)])
            let plainContext = try NIOSSLContext(configuration: plain)
            let nioOnly = try await handshake(port: server.port) { channel in
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: plainContext, serverHostname: NIOWorld.host))
                return nil
            }
            #expect(nioOnly.handshakeCompleted, "swift-nio-ssl's own check: \(String(describing: nioOnly.error))")

            // TLSTrust refuses it: the host check is TLSTrust's.
            let outcome = try await tlsTrustHandshake(port: server.port, verifier: world.verifier())
            #expect(!outcome.handshakeCompleted)
            #expect(outcome.failure?.serverTrustError?.code == .hostValidationFailed)

            // Even on a context left at .fullVerification (swift-nio-ssl's check would pass).
            let full = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(),
                                                   configuration: .makeClientConfiguration())
            #expect(full.failure?.serverTrustError?.code == .hostValidationFailed)

            // Asked for by its IP address (no SNI is sent), the same certificate is accepted.
            let byIP = try await tlsTrustHandshake(port: server.port, host: "127.0.0.1", verifier: world.verifier())
            #expect(byIP.trustedDecision?.host == "127.0.0.1")
        }
    }

    @Test("Trap: with certificateVerification .none swift-nio-ssl ignores the callback's refusal; TLSTrust refuses that configuration")
    func verificationNoneRefusedLoudly() async throws {
        let world = world
        var none = TLSConfiguration.makeClientConfiguration()
        none.certificateVerification = .none
        #expect(throws: TLSTrustConfigurationError.self) { try none.forTLSTrust() }
        var optional = TLSConfiguration.makeClientConfiguration()
        optional.certificateVerification = .optionalVerification
        #expect(throws: TLSTrustConfigurationError.self) { try optional.forTLSTrust() }
        #expect(try TLSConfiguration.makeClientConfiguration().forTLSTrust().certificateVerification == .noHostnameVerification)

        let noneContext = try NIOSSLContext(configuration: none)
        let verifier = world.verifier()
        #expect(throws: TLSTrustConfigurationError.self) {
            _ = try NIOSSLClientHandler(context: noneContext, serverHostname: NIOWorld.host, tlsTrust: verifier)
        }
        #expect(throws: TLSTrustConfigurationError.self) {
            _ = try NIOSSLClientTLSProvider<ClientBootstrap>(context: noneContext, serverHostname: NIOWorld.host, tlsTrust: verifier)
        }
        #expect(throws: TLSTrustConfigurationError.self) {
            _ = try NIOSSLServerHandler(context: noneContext, tlsTrust: TLSTrustClientCertificateVerifier(anchors: world.anchors))
        }

        try await TestTLSServer.with(presenting: world.rogue.chain) { server in
            // The helper refuses to set up the connection at all (the channel initializer's
            // error fails the connect; NIO wraps it in NIOConnectionError).
            do {
                _ = try await handshake(port: server.port) { channel in
                    try channel.pipeline.syncOperations.addTLSTrustClientHandlers(
                        context: noneContext, serverHostname: NIOWorld.host, verifier: verifier)
                }
                Issue.record("a .none context was accepted")
            } catch {
                let underlying = (error as? NIOConnectionError)?.connectionErrors.map(\.error) ?? [error]
                #expect(underlying.contains { $0 is TLSTrustConfigurationError }, "\(error)")
            }
            // The trap, shown: the same callback given to swift-nio-ssl directly under .none
            // refuses the forged chain, and the handshake completes all the same.
            let record = TLSTrustVerificationRecord()
            let trap = try await handshake(port: server.port) { channel in
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(
                    context: noneContext, serverHostname: NIOWorld.host,
                    customVerificationCallbackWithMetadata: verifier.clientCallback(forHost: NIOWorld.host, record: record)))
                return record
            }
            #expect(record.failure?.serverTrustError?.code == .defaultEvaluationFailed, "TLSTrust refused")
            #expect(trap.handshakeCompleted, "and swift-nio-ssl went on regardless")
        }
    }

    @Test("NIOSSLClientTLSProvider (NIOClientTCPBootstrap): refusal recorded, reason surfaced by the handler")
    func clientTLSProvider() async throws {
        let world = world
        let context = try NIOSSLContext(configuration: .makeTLSTrustClientConfiguration())
        try await TestTLSServer.with(presenting: world.real.chain) { server in
            for (evaluator, accepted) in [(pick(.default), true), (pick(.publicKeys([world.rogue.root.certificate.publicKey])), false)] {
                let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
                defer { group.shutdownGracefully { _ in } }
                let record = TLSTrustVerificationRecord()
                let provider = try NIOSSLClientTLSProvider<ClientBootstrap>(
                    context: context, serverHostname: NIOWorld.host, tlsTrust: world.verifier(evaluator), record: record)
                let promise = group.next().makePromise(of: HandshakeOutcome.self)
                let channel = try await NIOClientTCPBootstrap(ClientBootstrap(group: group), tls: provider)
                    .enableTLS()
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(TLSTrustVerificationHandler(record: record))
                            try channel.pipeline.syncOperations.addHandler(OutcomeCollector(promise: promise, record: record))
                        }
                    }
                    .connect(host: "127.0.0.1", port: server.port).get()
                let outcome = try await promise.futureResult.get()
                try? await channel.close()
                #expect(outcome.handshakeCompleted == accepted)
                if accepted {
                    #expect(record.decision != nil)
                    #expect(outcome.trustedDecision != nil)
                } else {
                    #expect(record.failure?.serverTrustError?.code == .publicKeyPinningFailed)
                    #expect(outcome.failure?.serverTrustError?.code == .publicKeyPinningFailed)
                }
            }
        }
    }

    @Test("HTTP/2: ALPN negotiates h2 on a TLSTrust-verified connection")
    func alpnH2() async throws {
        let world = world
        var configuration = TLSConfiguration.makeTLSTrustClientConfiguration()
        configuration.applicationProtocols = ["h2"]
        try await TestTLSServer.with(presenting: world.real.chain, http2: true) { server in
            let outcome = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(), configuration: configuration)
            #expect(outcome.alpn == "h2")
            #expect(outcome.trustedDecision != nil)
        }
    }

    @Test("Mutual TLS: a PKCS#12 client identity is accepted by TLSTrust on the server; another CA's is refused")
    func mutualTLS() async throws {
        let world = world
        let good = try world.pkcs12Bundle(world.client, chain: [world.real.intermediate])
        let rogue = try world.pkcs12Bundle(world.rogueClient, chain: [world.rogue.intermediate])
        // TLSTrust reads the same file as the same identity.
        let p12 = try TestPKI.pkcs12(leaf: world.client, chain: [world.real.intermediate], password: NIOWorld.password)
        let identity = try OpenSSLTrustBackend().importPKCS12(p12, password: NIOWorld.password)
        #expect(try identity.certificate.derEncoded == good.certificateChain[0].toDERBytes())

        func configuration(_ bundle: NIOSSLPKCS12Bundle?) -> TLSConfiguration {
            var configuration = TLSConfiguration.makeTLSTrustClientConfiguration()
            if let bundle {
                configuration.certificateChain = bundle.certificateChain.map { .certificate($0) }
                configuration.privateKey = .privateKey(bundle.privateKey)
            }
            return configuration
        }

        try await TestTLSServer.with(presenting: world.real.chain, clientCAs: [world.real.root]) { server in
            let accepted = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(), configuration: configuration(good))
            #expect(accepted.trustedDecision != nil)
            try await waitUntil { server.clientRecords.all.count == 1 && server.clientRecords.all[0].outcome != nil }
            guard case .clientAccepted(let evaluation) = server.clientRecords.all[0].outcome else {
                Issue.record("the server did not accept the client: \(String(describing: server.clientRecords.all[0].outcome))")
                return
            }
            #expect(evaluation.chain.first == world.client.certificate)
            #expect(evaluation.chain.last == world.real.root.certificate)

            _ = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(), configuration: configuration(rogue))
            try await waitUntil { server.clientRecords.all.count == 2 && server.clientRecords.all[1].outcome != nil }
            let refusal = try #require(server.clientRecords.all[1].failure)
            #expect(refusal.clientTrustError != nil)
            #expect(refusal.reason.contains("client certificate refused"))

            // No client certificate at all: the server does not accept the connection (under
            // TLS 1.3 the client may finish its side of the handshake before the server refuses).
            _ = try await tlsTrustHandshake(port: server.port, verifier: world.verifier(), configuration: configuration(nil))
            try await waitUntil { server.clientRecords.all.count == 3 }
            try await Task.sleep(for: .milliseconds(200))
            if case .clientAccepted = server.clientRecords.all[2].outcome {
                Issue.record("a client without a certificate was accepted")
            }
        }
    }
}

/// Waits (at most 5 s) until `condition` holds.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw HandshakeTimeout() }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Lets a test use the dot-shorthands where no contextual type would otherwise name the protocol.
func pick(_ evaluator: any ServerTrustEvaluating) -> any ServerTrustEvaluating { evaluator }
#endif
