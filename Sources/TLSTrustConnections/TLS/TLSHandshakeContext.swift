import Dispatch
import TLSTrustCore
import TLSTrustDecisions

/// The trust decisions of one handshake, made by the core and called into by a backend.
///
/// A backend's TLS code never decides whom to trust. When its library has received the peer's
/// certificate chain (and, when the client asked for one, the OCSP response the server stapled),
/// and before the handshake goes on, it calls ``verifyPeer(presentedChain:protocolVersion:stapledOCSPResponses:signedCertificateTimestampList:)``
/// and aborts the handshake with a fatal alert if the answer is false. When a server asks a client
/// for a certificate, it calls ``clientIdentity(acceptableCANames:protocolVersion:)``. Both run the
/// app's ``TLSChallengeHandler`` — an async function — and wait for it, bounded by the handshake
/// deadline, on the connection's own thread.
///
/// After a failed handshake the connection reports ``failure`` (TLSTrust's reason) in preference to
/// whatever the library said, so the app sees "pin mismatch" rather than "certificate verify failed".
///
/// - Important: call it from a thread of your own (``TLSConnection`` runs sessions on a dispatch
///   queue), never from Swift's cooperative pool: waiting there for an async handler that needs a
///   pool thread could starve the pool until the deadline.
public final class TLSHandshakeContext: Sendable {
    /// Which side of the connection this is.
    public enum Role: String, Sendable { case client, server }

    /// Which side of the connection this is.
    public let role: Role
    /// The host the peer must be (client side), used in the protection space and the SSL policy.
    public let host: String
    /// The peer's port (client side) or the local port (server side).
    public let port: Int
    /// The backend running the handshake.
    public let backend: any TrustBackend

    private let anchors: TrustAnchors
    private let handler: (any TLSChallengeHandler)?
    private let configuredIdentity: ClientIdentity?
    private let clientAuthentication: TLSClientAuthentication
    /// The client configuration's revocation policy, for the `Trust` default handling evaluates.
    private let revocation: RevocationPolicy
    /// The client configuration's Certificate Transparency policy, for the same `Trust`.
    private let certificateTransparency: CertificateTransparencyPolicy?
    private let state = Locked(State())

    private struct State {
        var deadline: ContinuousClock.Instant = .now + .seconds(15)
        var failure: TLSError?
        var peerTrust: Trust?
        var evaluation: TrustEvaluation?
        var challenges: [TLSAuthenticationMethod] = []
        var sentIdentity: ClientIdentity?
        var stapledOCSPResponses: [[UInt8]] = []
        var signedCertificateTimestampList: [UInt8]?
    }

    /// A client's context.
    public init(client configuration: TLSClientConfiguration, host: String, port: Int, backend: any TrustBackend) {
        role = .client
        self.host = configuration.serverName ?? host
        self.port = port
        self.backend = backend
        anchors = configuration.anchors
        handler = configuration.challengeHandler
        configuredIdentity = configuration.identity
        clientAuthentication = .none
        revocation = configuration.revocation
        certificateTransparency = configuration.certificateTransparency
    }

    /// A server's context.
    public init(server configuration: TLSServerConfiguration, port: Int, backend: any TrustBackend) {
        role = .server
        host = "client"
        self.port = port
        self.backend = backend
        anchors = configuration.clientAnchors
        handler = configuration.challengeHandler
        configuredIdentity = nil
        clientAuthentication = configuration.clientAuthentication
        // A server asks no client for stapled answers (TLS has no such request for client
        // certificates), so the client's chain is judged without revocation.
        revocation = .off
        certificateTransparency = nil
    }

    /// The instant by which the current phase must end; set by ``TLSConnection``.
    public var deadline: ContinuousClock.Instant {
        get { state.withLock { $0.deadline } }
        set { state.withLock { $0.deadline = newValue } }
    }

    /// TLSTrust's reason for a failed handshake, if TLSTrust caused the failure.
    public var failure: TLSError? { state.withLock { $0.failure } }

    /// The peer's chain as presented, once received.
    public var peerCertificates: [Certificate] { state.withLock { $0.peerTrust?.certificates ?? [] } }

    /// The evaluation that accepted or refused the peer, when one was made (default handling, or a
    /// handler that evaluated through ``TLSChallengeHandlers/evaluator(_:identity:)`` does not
    /// report its own here).
    public var evaluation: TrustEvaluation? { state.withLock { $0.evaluation } }

    /// The challenges raised so far, in order (for tests and logs).
    public var challenges: [TLSAuthenticationMethod] { state.withLock { $0.challenges } }

    /// The DER OCSP responses the server stapled (status_request), as the backend handed them to
    /// ``verifyPeer(presentedChain:protocolVersion:stapledOCSPResponses:signedCertificateTimestampList:)``: the leaf's first,
    /// then any a TLS 1.3 server stapled for other certificates of its chain. Empty when the client
    /// did not ask (``TLSClientConfiguration/asksForStapledOCSPResponse``), when the server stapled
    /// nothing, and on a server. The bytes are exactly what arrived: judging them is the engine's
    /// job, so they may be anything, garbage included.
    public var stapledOCSPResponses: [[UInt8]] { state.withLock { $0.stapledOCSPResponses } }

    /// The server's SCT list from its `signed_certificate_timestamp` TLS extension (RFC 6962
    /// §3.3), exactly as the backend handed it to
    /// ``verifyPeer(presentedChain:protocolVersion:stapledOCSPResponses:signedCertificateTimestampList:)``.
    /// Nil when the client did not ask (no ``TLSClientConfiguration/certificateTransparency``
    /// policy, or a library that cannot ask: ``TLSBackend/supportsSignedCertificateTimestamps``),
    /// when the server sent none, and on a server. Judging it is the engine's job.
    public var signedCertificateTimestampList: [UInt8]? { state.withLock { $0.signedCertificateTimestampList } }

    /// The identity this client sent, if any.
    public var sentIdentity: ClientIdentity? { state.withLock { $0.sentIdentity } }

    /// Records a failure that the library cannot express, keeping the first one.
    public func recordFailure(_ error: TLSError) {
        state.withLock { s in if s.failure == nil { s.failure = error } }
    }

    /// Whether a server asks for a client certificate, and insists on one.
    public var requestsClientCertificate: TLSClientAuthentication { clientAuthentication }

    // MARK: Peer trust

    /// Decides whether to trust the chain the peer presented. Call it from the library's
    /// verification hook, before the handshake continues; on false, abort with a fatal alert
    /// (`bad_certificate`) and let the connection report ``failure``.
    ///
    /// - Parameters:
    ///   - presentedChain: the DER certificates exactly as the peer sent them, leaf first.
    ///   - protocolVersion: the version being negotiated, if the library knows it.
    ///   - stapledOCSPResponses: the DER OCSP responses the server stapled, the leaf's first; empty
    ///     when none arrived. A backend must call this only once they are known (under TLS 1.2
    ///     the CertificateStatus message follows Certificate), so that the decision that gates the
    ///     handshake sees them. They go into the `Trust` as `Trust.stapledOCSPResponses`, with
    ///     the client configuration's ``TLSClientConfiguration/revocation``, so that default
    ///     handling — and a handler that evaluates the `Trust` — judges them.
    ///   - signedCertificateTimestampList: the server's SCT list from the TLS extension, as
    ///     received; nil when none arrived. It goes into the `Trust` as
    ///     `Trust.signedCertificateTimestampList`, judged with the configuration's
    ///     ``TLSClientConfiguration/certificateTransparency`` policy.
    /// - Returns: true only when the trust decision accepted the chain.
    public func verifyPeer(presentedChain: [[UInt8]], protocolVersion: TLSVersion? = nil,
                           stapledOCSPResponses: [[UInt8]] = [], signedCertificateTimestampList: [UInt8]? = nil) -> Bool {
        let method: TLSAuthenticationMethod = role == .client ? .serverTrust : .clientTrust
        state.withLock { s in
            s.challenges.append(method)
            s.stapledOCSPResponses = stapledOCSPResponses
            s.signedCertificateTimestampList = signedCertificateTimestampList
        }
        guard !presentedChain.isEmpty else {
            refuse(.noPeerCertificate, "the \(role == .client ? "server" : "client") presented no certificate")
            return false
        }
        // The core's strict parser screens the chain, as on every other entry point (the CLI,
        // `SecTrust`, NIO): what is screened must not depend on the way in, nor on the backend (a
        // library screen would refuse on mbedTLS a CA with name constraints that the engine
        // enforces on every backend). The library has parsed the chain for its handshake already.
        var certificates: [Certificate] = []
        certificates.reserveCapacity(presentedChain.count)
        for (index, der) in presentedChain.enumerated() {
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch {
                refuse(.peerTrustRefused, "certificate \(index) of the presented chain cannot be parsed", underlying: error as? TLSTrustError)
                return false
            }
        }
        var trust = Trust(
            certificates: certificates,
            policies: [.ssl(server: role == .client, hostname: role == .client ? host : nil)],
            anchors: anchors)
        trust.revocation = revocation
        trust.stapledOCSPResponses = stapledOCSPResponses
        trust.certificateTransparency = certificateTransparency
        trust.signedCertificateTimestampList = signedCertificateTimestampList
        state.withLock { $0.peerTrust = trust }

        guard let handler else { return defaultTrust(trust) }
        let space = TLSProtectionSpace(host: host, port: port, authenticationMethod: method,
                                       serverTrust: trust, protocolVersion: protocolVersion)
        guard let response = ask(handler, TLSAuthenticationChallenge(protectionSpace: space, backend: backend)) else {
            return false
        }
        switch response.disposition {
        case .useCredential:
            guard case .trust? = response.credential else {
                refuse(.invalidConfiguration, "the challenge handler answered a \(method) challenge with useCredential but no trust credential")
                return false
            }
            return true
        case .performDefaultHandling:
            return defaultTrust(trust)
        case .cancelAuthenticationChallenge:
            if let reason = response.reason {
                let refusal = TLSError(.peerTrustRefused, "the \(method) challenge handler refused the chain",
                                       underlying: reason, evaluation: (reason as? TrustEvaluationError)?.evaluation)
                state.withLock { s in
                    if s.failure == nil { s.failure = refusal }
                    if s.evaluation == nil { s.evaluation = refusal.evaluation }
                }
            } else {
                refuse(.cancelled, "the challenge handler cancelled the \(method) challenge")
            }
            return false
        case .rejectProtectionSpace:
            refuse(.peerTrustRefused, "the challenge handler rejected the \(method) protection space")
            return false
        }
    }

    private func defaultTrust(_ trust: Trust) -> Bool {
        let evaluation = trust.evaluate(using: backend)
        state.withLock { $0.evaluation = evaluation }
        guard evaluation.isTrusted else {
            let error = TrustEvaluationError(evaluation: evaluation)
            refuse(.peerTrustRefused, "the \(role == .client ? "server" : "client")'s certificate is not trusted", underlying: error, evaluation: evaluation)
            return false
        }
        return true
    }

    // MARK: Client certificates

    /// Chooses the identity to send when the server asks for a client certificate.
    ///
    /// - Parameters:
    ///   - acceptableCANames: the DER `Name`s from the server's CertificateRequest, or nil when the
    ///     library cannot tell them before the certificate is chosen.
    ///   - protocolVersion: the version being negotiated, if known.
    /// - Returns: `.send(identity)`, `.sendNone`, or `.abort` (the handler cancelled: end the
    ///   handshake and let the connection report ``failure``).
    public func clientIdentity(acceptableCANames: [[UInt8]]?, protocolVersion: TLSVersion? = nil) -> ClientCertificateChoice {
        state.withLock { $0.challenges.append(.clientCertificate) }
        guard let handler else { return choose(configuredIdentity) }
        let names = acceptableCANames?.compactMap { try? DistinguishedName(derEncoded: $0) }
        let space = TLSProtectionSpace(host: host, port: port, authenticationMethod: .clientCertificate,
                                       distinguishedNames: names, protocolVersion: protocolVersion)
        guard let response = ask(handler, TLSAuthenticationChallenge(protectionSpace: space, backend: backend)) else {
            return .abort
        }
        switch response.disposition {
        case .useCredential:
            guard case .identity(let identity)? = response.credential else {
                refuse(.invalidConfiguration, "the challenge handler answered the clientCertificate challenge with useCredential but no identity")
                return .abort
            }
            return choose(identity)
        case .performDefaultHandling:
            return choose(configuredIdentity)
        case .rejectProtectionSpace:
            return .sendNone
        case .cancelAuthenticationChallenge:
            refuse(.cancelled, "the challenge handler cancelled the clientCertificate challenge", underlying: response.reason)
            return .abort
        }
    }

    private func choose(_ identity: ClientIdentity?) -> ClientCertificateChoice {
        guard let identity else { return .sendNone }
        state.withLock { $0.sentIdentity = identity }
        return .send(identity)
    }

    /// What to answer a server's certificate request with.
    public enum ClientCertificateChoice: Sendable {
        /// Send this identity.
        case send(ClientIdentity)
        /// Send no certificate (the server decides whether that is acceptable).
        case sendNone
        /// End the handshake.
        case abort
    }

    // MARK: Running the app's handler

    /// Runs the async handler and waits for it on this (non-cooperative) thread, up to the
    /// deadline. Nil means no answer in time: the challenge is refused.
    private func ask(_ handler: any TLSChallengeHandler, _ challenge: TLSAuthenticationChallenge) -> TLSChallengeResponse? {
        let answer = Locked<TLSChallengeResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task(executorPreference: DispatchTaskExecutor.challengeHandlers) {
            let response = await handler.handle(challenge)
            answer.withLock { $0 = response }
            done.signal()
        }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000)
        if done.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, Int64(Int32.max) * 100)))) == .timedOut {
            task.cancel()
            refuse(.timedOut, "the challenge handler did not answer the \(challenge.protectionSpace.authenticationMethod) challenge before the handshake deadline")
            return nil
        }
        return answer.withLock { $0 }
    }

    private func refuse(_ code: TLSError.Code, _ message: String, underlying: (any Error & Sendable)? = nil, evaluation: TrustEvaluation? = nil) {
        recordFailure(TLSError(code, message, underlying: underlying, evaluation: evaluation))
    }
}
