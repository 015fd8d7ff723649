#if NIO
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import NIOTLS
import TLSTrust

/// Why TLSTrust refused a peer's chain, as the error a channel's handlers see.
///
/// swift-nio-ssl's custom verification callback can only say "verified" or "failed": a refused
/// chain reaches the app as `NIOSSLError.handshakeFailed(...CERTIFICATE_VERIFY_FAILED...)`, which
/// does not say that it was a pin mismatch, a forged chain or a wrong host. The verifiers record
/// TLSTrust's refusal in a ``TLSTrustVerificationRecord``, and ``TLSTrustVerificationHandler``
/// replaces swift-nio-ssl's handshake error with this one, carrying both.
///
/// ```swift
/// func errorCaught(context: ChannelHandlerContext, error: Error) {
///     if let refusal = error as? TLSTrustVerificationFailure, refusal.serverTrustError?.code == .publicKeyPinningFailed { … }
/// }
/// ```
public struct TLSTrustVerificationFailure: Error, Sendable, CustomStringConvertible {
    /// TLSTrust's refusal.
    public enum Refusal: Sendable {
        /// A client refused the server's chain: the evaluator's error.
        case serverChain(ServerTrustError)
        /// A server refused a client certificate chain: the evaluation.
        case clientChain(TrustEvaluationError)
    }

    /// TLSTrust's refusal.
    public let refusal: Refusal
    /// The host the client connected to; nil for a server's refusal of a client certificate.
    public let host: String?
    /// What swift-nio-ssl reported for the same handshake (without TLSTrust's reason), once it did.
    public var handshakeError: (any Error)?

    /// - Parameters:
    ///   - refusal: TLSTrust's refusal.
    ///   - host: the host connected to (nil on a server).
    ///   - handshakeError: swift-nio-ssl's error for the handshake, if known.
    public init(_ refusal: Refusal, host: String?, handshakeError: (any Error)? = nil) {
        self.refusal = refusal
        self.host = host
        self.handshakeError = handshakeError
    }

    /// The evaluator's error when a server's chain was refused.
    public var serverTrustError: ServerTrustError? {
        if case .serverChain(let error) = refusal { return error }
        return nil
    }

    /// The evaluation when a client's chain was refused.
    public var clientTrustError: TrustEvaluationError? {
        if case .clientChain(let error) = refusal { return error }
        return nil
    }

    /// TLSTrust's reason in one line, e.g. `api.example.com: PublicKeysTrustEvaluator refused
    /// (publicKeyPinningFailed): …`.
    public var reason: String {
        switch refusal {
        case .serverChain(let error): error.description
        case .clientChain(let error): "client certificate refused: \(error.description)"
        }
    }

    public var description: String {
        "TLSTrust refused the peer's certificate chain: \(reason)" + (handshakeError.map { " (swift-nio-ssl: \($0))" } ?? "")
    }
}

/// What TLSTrust decided for a connection: a decision or a refusal.
///
/// The verifiers write it from swift-nio-ssl's callback, before the handshake goes on, so it is
/// there when the handshake fails or completes. Read it from any thread. One record belongs to
/// one connection (the pipeline helpers make one per channel); given to a
/// `NIOSSLClientTLSProvider`, which serves every connection of its bootstrap, it holds the latest
/// connection's outcome.
public final class TLSTrustVerificationRecord: Sendable {
    /// An outcome of a verification.
    public enum Outcome: Sendable {
        /// The server's chain was accepted.
        case accepted(ServerTrustDecision)
        /// A client certificate chain was accepted (on a server).
        case clientAccepted(TrustEvaluation)
        /// TLSTrust refused the peer's chain.
        case refused(TLSTrustVerificationFailure)
    }

    private struct State {
        var outcome: Outcome?
        var reported = false
    }

    private let state = NIOLockedValueBox(State())
    /// Called with each outcome, on the event loop, as it is recorded (for logging and metrics).
    private let onOutcome: (@Sendable (Outcome) -> Void)?

    /// - Parameter onOutcome: called with each outcome as it is recorded, on the event loop; it
    ///   must not block.
    public init(onOutcome: (@Sendable (Outcome) -> Void)? = nil) {
        self.onOutcome = onOutcome
    }

    /// The latest outcome; nil before the peer's chain was evaluated.
    public var outcome: Outcome? { state.withLockedValue { $0.outcome } }

    /// The server-trust decision, when the server's chain was accepted.
    public var decision: ServerTrustDecision? {
        if case .accepted(let decision) = outcome { return decision }
        return nil
    }

    /// TLSTrust's refusal, when the peer's chain was refused.
    public var failure: TLSTrustVerificationFailure? {
        if case .refused(let failure) = outcome { return failure }
        return nil
    }

    func record(_ outcome: Outcome) {
        state.withLockedValue { $0 = State(outcome: outcome, reported: false) }
        onOutcome?(outcome)
    }

    /// The refusal not yet reported through the pipeline, once.
    func takeUnreportedFailure() -> TLSTrustVerificationFailure? {
        state.withLockedValue { state in
            guard !state.reported, case .refused(let failure) = state.outcome else { return nil }
            state.reported = true
            return failure
        }
    }
}

/// The user inbound events ``TLSTrustVerificationHandler`` fires.
public enum TLSTrustEvent: Sendable {
    /// The handshake completed and TLSTrust had accepted the server's chain.
    case serverTrusted(ServerTrustDecision)
    /// The handshake completed and TLSTrust had accepted the client's chain.
    case clientTrusted(TrustEvaluation)
    /// The handshake failed because TLSTrust refused the peer's chain (fired before the
    /// ``TLSTrustVerificationFailure`` error).
    case refused(TLSTrustVerificationFailure)
}

/// Puts TLSTrust's reason back into the pipeline, after swift-nio-ssl's handler.
///
/// - When swift-nio-ssl reports the failed handshake (`errorCaught` with its bare
///   `handshakeFailed`), this handler fires ``TLSTrustEvent/refused(_:)`` and then, in place of
///   swift-nio-ssl's error, a ``TLSTrustVerificationFailure`` that carries TLSTrust's refusal and
///   swift-nio-ssl's error.
/// - After `TLSUserEvent.handshakeCompleted` it fires ``TLSTrustEvent/serverTrusted(_:)`` (or
///   ``TLSTrustEvent/clientTrusted(_:)``) with the evidence.
///
/// The pipeline helpers add it; add it yourself right after a handler made with
/// ``TLSTrustVerifier/clientCallback(forHost:record:)`` and the same record.
public final class TLSTrustVerificationHandler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    public typealias InboundIn = NIOAny
    public typealias InboundOut = NIOAny

    /// The record the verification callback writes.
    public let record: TLSTrustVerificationRecord

    /// - Parameter record: the record given to the verification callback of the same connection.
    public init(record: TLSTrustVerificationRecord) {
        self.record = record
    }

    public func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard var failure = record.takeUnreportedFailure() else {
            context.fireErrorCaught(error)
            return
        }
        failure.handshakeError = error
        context.fireUserInboundEventTriggered(TLSTrustEvent.refused(failure))
        context.fireErrorCaught(failure)
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        guard case .handshakeCompleted = event as? TLSUserEvent else { return }
        switch record.outcome {
        case .accepted(let decision): context.fireUserInboundEventTriggered(TLSTrustEvent.serverTrusted(decision))
        case .clientAccepted(let evaluation): context.fireUserInboundEventTriggered(TLSTrustEvent.clientTrusted(evaluation))
        case .refused, nil: break
        }
    }

    public func channelInactive(context: ChannelHandlerContext) {
        // A refusal that swift-nio-ssl closed on without an error still reaches the app.
        if let failure = record.takeUnreportedFailure() {
            context.fireUserInboundEventTriggered(TLSTrustEvent.refused(failure))
            context.fireErrorCaught(failure)
        }
        context.fireChannelInactive()
    }
}
#endif
