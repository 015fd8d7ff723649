#if NIO
import NIOCore
import NIOSSL
import TLSTrust

/// TLSTrust's server-trust evaluation as swift-nio-ssl's custom verification callback.
///
/// swift-nio-ssl hands a custom verification callback the chain exactly as the server presented
/// it and lets the callback replace BoringSSL's chain checks. A `TLSTrustVerifier` converts that
/// chain to DER, builds a ``TLSTrustCore/Trust`` with the SSL policy for the host and the verifier's
/// anchors, and lets a TLSTrust evaluator (any ``TLSTrust/ServerTrustEvaluating``, a
/// ``TLSTrust/ServerTrustManager`` included) decide on the backend of your choice. TLSTrust builds
/// and validates the chain and checks the host name; nothing is re-validated here.
///
/// ```swift
/// let verifier = TLSTrustVerifier(evaluator: .publicKeys([pinnedKey, backupKey]), backend: OpenSSLTrustBackend())
/// let context = try NIOSSLContext(configuration: try TLSConfiguration.makeClientConfiguration().forTLSTrust())
/// ClientBootstrap(group: group).channelInitializer { channel in
///     channel.eventLoop.makeCompletedFuture {
///         let record = try channel.pipeline.syncOperations.addTLSTrustClientHandlers(
///             context: context, serverHostname: "api.example.com", verifier: verifier)
///         // … your handlers; after a refusal, `record.failure` says why (e.g. a pin mismatch)
///     }
/// }
/// ```
///
/// The evaluation runs on the connection's event loop (it is CPU work of a millisecond or so,
/// and TLSTrust caches verified chains); nothing blocks on I/O.
public struct TLSTrustVerifier: Sendable {
    /// Decides whether a presented chain may be trusted for a host.
    public let evaluator: any ServerTrustEvaluating
    /// The anchors the `Trust` starts with: what evaluators treat as the system store
    /// (``TLSTrustCore/TrustAnchors/system`` by default). Evaluators that bring their own anchors
    /// (``TLSTrust/AnchoredTrustEvaluator``) replace them.
    public let anchors: TrustAnchors
    /// The backend to evaluate on; nil uses the bootstrapped default (``TLSTrustCore/TrustBackends``).
    public let backend: (any TrustBackend)?

    /// - Parameters:
    ///   - evaluator: the evaluator, e.g. `.default`, `.publicKeys([...])`, a `ServerTrustManager`.
    ///   - anchors: the anchors of the `Trust` (default: the system store).
    ///   - backend: the backend to evaluate on (default: the bootstrapped one).
    public init(evaluator: any ServerTrustEvaluating, anchors: TrustAnchors = .system, backend: (any TrustBackend)? = nil) {
        self.evaluator = evaluator
        self.anchors = anchors
        self.backend = backend
    }

    /// Evaluates a chain as swift-nio-ssl presents it, for `host`: what the callback does.
    ///
    /// - Parameters:
    ///   - presented: the server's chain, leaf first, as presented.
    ///   - host: the DNS name or IP literal the client connected to.
    /// - Returns: the evaluator's decision.
    /// - Throws: ``TLSTrust/ServerTrustError``: the evaluator's refusal, or `.noCertificatesPresented` /
    ///   `.defaultEvaluationFailed` for a chain that is empty or not DER X.509.
    public func evaluate(presented: [NIOSSLCertificate], forHost host: String) throws -> ServerTrustDecision {
        let certificates = try Self.certificates(presented, host: host)
        let trust = Trust(certificates: certificates, policies: [.ssl(hostname: host)], anchors: anchors)
        return try evaluator.evaluate(trust, forHost: host, using: backend)
    }

    /// The custom verification callback for a client connecting to `host`, for
    /// `NIOSSLClientHandler(context:serverHostname:customVerificationCallbackWithMetadata:)` and
    /// `NIOSSLClientTLSProvider(context:serverHostname:customVerificationCallbackWithMetadata:)`.
    ///
    /// The callback records its outcome in `record` before it completes the promise: swift-nio-ssl
    /// reports a refused chain as a bare handshake failure, and `record` is where TLSTrust's reason
    /// survives. On success the validated chain (leaf to anchor) is returned as metadata, so that
    /// `NIOSSLHandler.peerValidatedCertificateChain` is TLSTrust's validated chain.
    ///
    /// - Important: swift-nio-ssl ignores the callback's refusal when the context's
    ///   `certificateVerification` is `.none`. Build the context from
    ///   ``NIOSSL/TLSConfiguration/forTLSTrust()``, or use the helpers that check it
    ///   (``NIOCore/ChannelPipeline/SynchronousOperations/addTLSTrustClientHandlers(context:serverHostname:verifier:record:)``).
    public func clientCallback(
        forHost host: String, record: TLSTrustVerificationRecord? = nil
    ) -> @Sendable ([NIOSSLCertificate], EventLoopPromise<NIOSSLVerificationResultWithMetadata>) -> Void {
        { [self] presented, promise in
            do {
                let decision = try evaluate(presented: presented, forHost: host)
                record?.record(.accepted(decision))
                promise.succeed(.certificateVerified(VerificationMetadata(Self.nioChain(decision.validatedChain?.certificates))))
            } catch let error as ServerTrustError {
                record?.record(.refused(TLSTrustVerificationFailure(.serverChain(error), host: host)))
                promise.succeed(.failed)
            } catch {
                let wrapped = ServerTrustError(.customEvaluationFailed, host: host, message: "\(error)", evaluator: "TLSTrustVerifier")
                record?.record(.refused(TLSTrustVerificationFailure(.serverChain(wrapped), host: host)))
                promise.succeed(.failed)
            }
        }
    }

    /// DER certificates from swift-nio-ssl's; a certificate TLSTrust cannot read refuses the chain.
    static func certificates(_ presented: [NIOSSLCertificate], host: String) throws -> [Certificate] {
        guard !presented.isEmpty else {
            throw ServerTrustError(.noCertificatesPresented, host: host, message: "the server presented no certificate",
                                   evaluator: "TLSTrustVerifier")
        }
        return try presented.enumerated().map { index, certificate in
            do {
                return try Certificate(derEncoded: try certificate.toDERBytes())
            } catch {
                throw ServerTrustError(.defaultEvaluationFailed, host: host,
                                       message: "presented certificate \(index) is not a readable X.509 certificate: \(error)",
                                       evaluator: "TLSTrustVerifier")
            }
        }
    }

    /// TLSTrust's validated chain as swift-nio-ssl's metadata; nil when there is none.
    static func nioChain(_ chain: [Certificate]?) -> ValidatedCertificateChain? {
        guard let chain, !chain.isEmpty,
              let converted = try? chain.map({ try NIOSSLCertificate(bytes: $0.derEncoded, format: .der) })
        else { return nil }
        return ValidatedCertificateChain(converted)
    }
}

/// TLSTrust's evaluation of a client's certificate chain, for a server that requires mutual TLS
/// (`NIOSSLServerHandler`).
///
/// The chain is evaluated by ``TLSTrustCore/Trust`` with the SSL client policy
/// (`.ssl(server: false)`: the `clientAuth` purpose, no host name) against `anchors`, the CAs the
/// server accepts client certificates from.
public struct TLSTrustClientCertificateVerifier: Sendable {
    /// The CAs client certificates must chain to.
    public let anchors: TrustAnchors
    /// The backend to evaluate on; nil uses the bootstrapped default.
    public let backend: (any TrustBackend)?

    /// - Parameters:
    ///   - anchors: the CAs client certificates must chain to (usually ``TLSTrustCore/TrustAnchors/only(_:)``).
    ///   - backend: the backend to evaluate on (default: the bootstrapped one).
    public init(anchors: TrustAnchors, backend: (any TrustBackend)? = nil) {
        self.anchors = anchors
        self.backend = backend
    }

    /// Evaluates a client's chain as presented.
    ///
    /// - Returns: the trusted evaluation.
    /// - Throws: ``TLSTrustCore/TrustEvaluationError`` for an untrusted chain, or
    ///   ``TLSTrust/ServerTrustError`` for an empty or unreadable one.
    @discardableResult
    public func evaluate(presented: [NIOSSLCertificate]) throws -> TrustEvaluation {
        let certificates = try TLSTrustVerifier.certificates(presented, host: "(client)")
        let trust = Trust(certificates: certificates, policies: [.ssl(server: false)], anchors: anchors)
        return try trust.evaluateOrThrow(using: backend)
    }

    /// The custom verification callback for `NIOSSLServerHandler(context:customVerificationCallbackWithMetadata:)`.
    public func serverCallback(
        record: TLSTrustVerificationRecord? = nil
    ) -> @Sendable ([NIOSSLCertificate], EventLoopPromise<NIOSSLVerificationResultWithMetadata>) -> Void {
        { [self] presented, promise in
            do {
                let evaluation = try evaluate(presented: presented)
                record?.record(.clientAccepted(evaluation))
                promise.succeed(.certificateVerified(VerificationMetadata(TLSTrustVerifier.nioChain(evaluation.chain))))
            } catch let error as TrustEvaluationError {
                record?.record(.refused(TLSTrustVerificationFailure(.clientChain(error), host: nil)))
                promise.succeed(.failed)
            } catch let error as ServerTrustError {
                record?.record(.refused(TLSTrustVerificationFailure(.serverChain(error), host: nil)))
                promise.succeed(.failed)
            } catch {
                let wrapped = ServerTrustError(.customEvaluationFailed, host: "(client)", message: "\(error)",
                                               evaluator: "TLSTrustClientCertificateVerifier")
                record?.record(.refused(TLSTrustVerificationFailure(.serverChain(wrapped), host: nil)))
                promise.succeed(.failed)
            }
        }
    }
}
#endif
