#if NIO
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import TLSTrust
import TLSTrustNIO
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

enum NIOTestBackend {
    static let backend: any TrustBackend = OpenSSLTrustBackend()
}

/// The certificates of the integration tests, minted once per test run.
///
/// - `real`: the genuine PKI of `api.example.com` (root → intermediate → leaf);
/// - `rogue`: another CA that mints a chain for the same host (a forged chain);
/// - `ipOnly`: a leaf of the real intermediate whose only SAN is `IP:127.0.0.1`;
/// - `client` / `rogueClient`: client certificates of the real and the rogue intermediate.
struct NIOWorld: Sendable {
    static let host = "api.example.com"
    static let password = "p12-secret"
    static let shared: NIOWorld = try! NIOWorld()

    let real: TestHierarchy
    let rogue: TestHierarchy
    let ipOnly: TestCertificate
    let client: TestCertificate
    let rogueClient: TestCertificate

    init() throws {
        real = try TestHierarchy.make(leafDNSNames: [Self.host])
        rogue = try TestHierarchy.make(leafDNSNames: [Self.host], customizeRoot: { $0.commonName = "Rogue Root CA" },
                                       customizeIntermediate: { $0.commonName = "Rogue Intermediate CA" })
        ipOnly = try TestPKI.issue(.leaf(commonName: "127.0.0.1", ipAddresses: ["127.0.0.1"]), issuer: real.intermediate)
        client = try TestPKI.issue(.leaf(commonName: "client.example.com", dnsNames: ["client.example.com"]), issuer: real.intermediate)
        rogueClient = try TestPKI.issue(.leaf(commonName: "client.example.com", dnsNames: ["client.example.com"]), issuer: rogue.intermediate)
    }

    /// Only the real root: the anchors of the client's `Trust`.
    var anchors: TrustAnchors { .only([real.root.certificate]) }

    func verifier(_ evaluator: any ServerTrustEvaluating = .default) -> TLSTrustVerifier {
        TLSTrustVerifier(evaluator: evaluator, anchors: anchors, backend: NIOTestBackend.backend)
    }

    /// A swift-nio-ssl PKCS#12 bundle read from a `.p12` file minted by `openssl pkcs12 -export`.
    func pkcs12Bundle(_ leaf: TestCertificate, chain: [TestCertificate]) throws -> NIOSSLPKCS12Bundle {
        let p12 = try TestPKI.pkcs12(leaf: leaf, chain: chain, password: Self.password)
        return try NIOSSLPKCS12Bundle(buffer: p12, passphrase: Array(Self.password.utf8))
    }
}

/// What a client connection saw before it was closed.
struct HandshakeOutcome: Sendable {
    /// TLSTrust's record of the connection (nil for a plain swift-nio-ssl client).
    var record: TLSTrustVerificationRecord?
    /// Whether swift-nio-ssl completed the handshake.
    var handshakeCompleted = false
    /// The negotiated ALPN protocol.
    var alpn: String?
    /// The TLSTrust events the app saw, in order.
    var events: [TLSTrustEvent] = []
    /// The error the app's handler saw.
    var error: (any Error)?
    /// `NIOSSLHandler.peerValidatedCertificateChain` after the handshake, as DER.
    var peerValidatedChain: [[UInt8]]?

    var trustedDecision: ServerTrustDecision? {
        for case .serverTrusted(let decision) in events { return decision }
        return nil
    }

    var refusedEvent: TLSTrustVerificationFailure? {
        for case .refused(let failure) in events { return failure }
        return nil
    }

    /// The refusal the app saw as its error.
    var failure: TLSTrustVerificationFailure? { error as? TLSTrustVerificationFailure }
}

struct HandshakeTimeout: Error {}

/// The app's handler: collects what the pipeline tells it until the handshake completes or fails.
final class OutcomeCollector: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<HandshakeOutcome>
    private var outcome: HandshakeOutcome
    private var done = false
    private var timeout: Scheduled<Void>?

    init(promise: EventLoopPromise<HandshakeOutcome>, record: TLSTrustVerificationRecord?) {
        self.promise = promise
        self.outcome = HandshakeOutcome(record: record)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(5)) {
            guard !self.done else { return }
            self.done = true
            self.promise.fail(HandshakeTimeout())
        }
    }

    private func finish(_ context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        timeout?.cancel()
        promise.succeed(outcome)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSTrustEvent { outcome.events.append(event) }
        if case .handshakeCompleted(let alpn) = event as? TLSUserEvent {
            outcome.handshakeCompleted = true
            outcome.alpn = alpn
            if let tls = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self) {
                outcome.peerValidatedChain = tls.peerValidatedCertificateChain.map { chain in chain.compactMap { try? $0.toDERBytes() } }
            }
            // TLSTrust's event follows swift-nio-ssl's in the same tick.
            context.eventLoop.assumeIsolated().execute { self.finish(context) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if outcome.error == nil { outcome.error = error }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context)
        context.fireChannelInactive()
    }
}

/// Connects to 127.0.0.1:`port` and runs `configure` to set up the TLS handlers; returns what
/// the app saw once the handshake completed or failed, and closes the connection.
func handshake(
    port: Int, configure: @escaping @Sendable (Channel) throws -> TLSTrustVerificationRecord?
) async throws -> HandshakeOutcome {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { group.shutdownGracefully { _ in } }
    let promise = group.next().makePromise(of: HandshakeOutcome.self)
    let channel: Channel
    do {
        channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let record = try configure(channel)
                    try channel.pipeline.syncOperations.addHandler(OutcomeCollector(promise: promise, record: record))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
    } catch {
        promise.fail(error)
        throw error
    }
    let outcome: HandshakeOutcome
    do {
        outcome = try await promise.futureResult.get()
    } catch {
        try? await channel.close()
        throw error
    }
    try? await channel.close()
    return outcome
}

/// A TLSTrust client handshake with `verifier`, for `host`.
func tlsTrustHandshake(
    port: Int, host: String = NIOWorld.host, verifier: TLSTrustVerifier,
    configuration: TLSConfiguration = .makeTLSTrustClientConfiguration()
) async throws -> HandshakeOutcome {
    let context = try NIOSSLContext(configuration: configuration)
    return try await handshake(port: port) { channel in
        try channel.pipeline.syncOperations.addTLSTrustClientHandlers(context: context, serverHostname: host, verifier: verifier)
    }
}
#endif
