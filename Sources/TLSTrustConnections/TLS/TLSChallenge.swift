import TLSTrustCore
import TLSTrustDecisions
/// What a challenge is about: URLSession's `NSURLAuthenticationMethodServerTrust` and
/// `NSURLAuthenticationMethodClientCertificate`, and the server's view of a client's chain.
public enum TLSAuthenticationMethod: String, Sendable, Hashable, CustomStringConvertible {
    /// A client deciding whether to trust the server's chain.
    case serverTrust
    /// A server asked the client for a certificate.
    case clientCertificate
    /// A server deciding whether to trust the client's chain.
    case clientTrust

    public var description: String { rawValue }
}

/// Where a challenge comes from: the analogue of `URLProtectionSpace`.
public struct TLSProtectionSpace: Sendable {
    /// The host the connection is for (the SNI name, or the address connected to).
    public let host: String
    /// The peer's port.
    public let port: Int
    /// What is asked.
    public let authenticationMethod: TLSAuthenticationMethod
    /// For `.clientCertificate`: the CA names the server said it accepts, when the library reports
    /// them (`distinguishedNames` in URLSession). Nil when the library cannot tell before the
    /// certificate is chosen (see docs/backends.md); empty when the server named none.
    public let distinguishedNames: [DistinguishedName]?
    /// For `.serverTrust` and `.clientTrust`: the peer's chain as presented, with the policy for
    /// this connection (SSL, the host) and the configured anchors, not yet evaluated.
    public let serverTrust: Trust?
    /// The TLS version being negotiated, when known at this point.
    public let protocolVersion: TLSVersion?

    public init(host: String, port: Int, authenticationMethod: TLSAuthenticationMethod,
                distinguishedNames: [DistinguishedName]? = nil, serverTrust: Trust? = nil, protocolVersion: TLSVersion? = nil) {
        self.host = host
        self.port = port
        self.authenticationMethod = authenticationMethod
        self.distinguishedNames = distinguishedNames
        self.serverTrust = serverTrust
        self.protocolVersion = protocolVersion
    }
}

/// A challenge raised during a handshake: the analogue of `URLAuthenticationChallenge`.
public struct TLSAuthenticationChallenge: Sendable {
    /// What is asked, and about whom.
    public let protectionSpace: TLSProtectionSpace
    /// The backend whose handshake raised it; evaluate the trust with it.
    public let backend: any TrustBackend

    public init(protectionSpace: TLSProtectionSpace, backend: any TrustBackend) {
        self.protectionSpace = protectionSpace
        self.backend = backend
    }
}

/// A credential answering a challenge: the analogue of `URLCredential`.
public enum TLSCredential: Sendable {
    /// For a trust challenge: the app accepts this trust (`URLCredential(trust:)`). The app is
    /// expected to have evaluated it; ``TLSChallengeHandlers/evaluator(_:identity:)`` does.
    case trust(Trust)
    /// For a client-certificate challenge: the identity to send.
    case identity(ClientIdentity)
}

/// The answer to a challenge: URLSession's `AuthChallengeDisposition` and a credential, plus the
/// reason for a cancellation, which URLSession has no place for.
public struct TLSChallengeResponse: Sendable {
    /// URLSession's dispositions.
    public enum Disposition: String, Sendable, Hashable {
        /// Use ``credential``: accept the peer's trust, or send the identity.
        case useCredential
        /// Do what TLSTrust does without a handler: validate to the configured anchors for the
        /// host; send the configured identity, if any.
        case performDefaultHandling
        /// End the handshake with a fatal alert; the connection fails with `TLSError.Code-swift.struct.cancelled`.
        case cancelAuthenticationChallenge
        /// Trust challenge: refused (fail closed — there is no other protection space to try).
        /// Client-certificate challenge: continue without sending a certificate.
        case rejectProtectionSpace
    }

    /// What to do.
    public let disposition: Disposition
    /// The credential for `.useCredential`.
    public let credential: TLSCredential?
    /// Why the challenge was cancelled or rejected, handed to the app in `TLSError.underlying`.
    public let reason: (any Error & Sendable)?

    public init(_ disposition: Disposition, credential: TLSCredential? = nil, reason: (any Error & Sendable)? = nil) {
        self.disposition = disposition
        self.credential = credential
        self.reason = reason
    }

    /// Use a credential.
    public static func useCredential(_ credential: TLSCredential) -> Self { Self(.useCredential, credential: credential) }
    /// Default handling.
    public static let performDefaultHandling = Self(.performDefaultHandling)
    /// Cancel, optionally saying why.
    public static func cancel(because reason: (any Error & Sendable)? = nil) -> Self {
        Self(.cancelAuthenticationChallenge, reason: reason)
    }
    /// Reject the protection space.
    public static let rejectProtectionSpace = Self(.rejectProtectionSpace)
}

/// Answers the challenges of a handshake, as a `URLSessionDelegate` answers
/// `urlSession(_:didReceive:completionHandler:)`.
///
/// The handshake waits for the answer, up to its `TLSTimeouts.handshake` limit; an answer that
/// comes later is a refusal.
public protocol TLSChallengeHandler: Sendable {
    /// Answers one challenge.
    func handle(_ challenge: TLSAuthenticationChallenge) async -> TLSChallengeResponse
}

/// A challenge handler made from a closure.
public struct ClosureChallengeHandler: TLSChallengeHandler {
    let body: @Sendable (TLSAuthenticationChallenge) async -> TLSChallengeResponse

    /// - Parameter body: answers each challenge.
    public init(_ body: @escaping @Sendable (TLSAuthenticationChallenge) async -> TLSChallengeResponse) {
        self.body = body
    }

    public func handle(_ challenge: TLSAuthenticationChallenge) async -> TLSChallengeResponse {
        await body(challenge)
    }
}

/// Ready-made challenge handlers.
public enum TLSChallengeHandlers {
    /// A handler from a closure.
    public static func closure(
        _ body: @escaping @Sendable (TLSAuthenticationChallenge) async -> TLSChallengeResponse
    ) -> ClosureChallengeHandler {
        ClosureChallengeHandler(body)
    }

    /// Decides trust challenges with an evaluator (any of the `ServerTrustEvaluating` family, a
    /// `ServerTrustManager`, a `SecurityPolicy`), and answers a client-certificate challenge
    /// with `identity` (or none when nil).
    ///
    /// A refusal cancels the challenge with the evaluator's `ServerTrustError` as the reason.
    public static func evaluator(_ evaluator: any ServerTrustEvaluating, identity: ClientIdentity? = nil) -> EvaluatorChallengeHandler {
        EvaluatorChallengeHandler(evaluator: evaluator, identity: identity)
    }
}

/// Decides trust challenges with a `ServerTrustEvaluating` and sends a fixed identity when asked.
public struct EvaluatorChallengeHandler: TLSChallengeHandler {
    /// The evaluator that decides.
    public let evaluator: any ServerTrustEvaluating
    /// The identity sent when the server asks for one.
    public let identity: ClientIdentity?

    public init(evaluator: any ServerTrustEvaluating, identity: ClientIdentity? = nil) {
        self.evaluator = evaluator
        self.identity = identity
    }

    public func handle(_ challenge: TLSAuthenticationChallenge) async -> TLSChallengeResponse {
        let space = challenge.protectionSpace
        switch space.authenticationMethod {
        case .clientTrust:
            // Server evaluators judge servers; a client's chain gets the SSL client policy.
            return .performDefaultHandling
        case .serverTrust:
            guard let trust = space.serverTrust else { return .cancel(because: nil) }
            do {
                _ = try evaluator.evaluate(trust, forHost: space.host, using: challenge.backend)
                return .useCredential(.trust(trust))
            } catch let error as ServerTrustError {
                return .cancel(because: error)
            } catch {
                return .cancel(because: TLSError(.peerTrustRefused, "\(error)"))
            }
        case .clientCertificate:
            guard let identity else { return .rejectProtectionSpace }
            return .useCredential(.identity(identity))
        }
    }
}
