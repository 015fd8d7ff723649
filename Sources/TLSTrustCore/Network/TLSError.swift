/// Why a TLS connection failed.
///
/// A connection refused because of its peer's certificate carries TLSTrust's reason: the
/// `ServerTrustError` or ``TrustEvaluationError`` the app's challenge handler (or default
/// handling) produced, in ``underlying``, and the refused evaluation in ``evaluation``.
///
/// ```swift
/// do {
///     let connection = try await TLSConnection.connect(host: "api.example.com", port: 443, configuration: config)
/// } catch let error as TLSError where error.code == .peerTrustRefused {
///     print("refused:", error.underlying ?? error.message)
/// }
/// ```
public struct TLSError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable, CaseIterable {
            case connectFailed, timedOut, connectionClosed, transportFailure
            case handshakeFailed, protocolError, peerTrustRefused, noPeerCertificate
            case cancelled, clientCertificateRejected, invalidConfiguration, unsupported
        }
        let value: Value
        init(_ value: Value) { self.value = value }

        /// The TCP connection could not be made (refused, unreachable, bad address).
        public static let connectFailed = Code(.connectFailed)
        /// A phase did not finish within its ``TLSTimeouts`` limit.
        public static let timedOut = Code(.timedOut)
        /// The peer closed the connection (during the handshake: before it was complete).
        public static let connectionClosed = Code(.connectionClosed)
        /// The socket failed in another way.
        public static let transportFailure = Code(.transportFailure)
        /// The TLS library ended the handshake: no shared version or cipher, a bad signature, an alert
        /// from the peer. The message carries the library's own words.
        public static let handshakeFailed = Code(.handshakeFailed)
        /// The peer sent bytes that are not TLS.
        public static let protocolError = Code(.protocolError)
        /// The peer's certificate chain was refused by the trust decision; nothing was sent to it
        /// after the refusal but a fatal alert.
        public static let peerTrustRefused = Code(.peerTrustRefused)
        /// The peer presented no certificate where one was required.
        public static let noPeerCertificate = Code(.noPeerCertificate)
        /// The app's challenge handler cancelled the challenge.
        public static let cancelled = Code(.cancelled)
        /// The server refused the client certificate (or its absence).
        public static let clientCertificateRejected = Code(.clientCertificateRejected)
        /// The configuration cannot be used (an identity from another backend, no identity on a
        /// server, contradictory versions).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The backend's library cannot do what was asked (e.g. TLS 1.3 on mbedTLS 2.28).
        public static let unsupported = Code(.unsupported)

        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in words, including the library's own message where there is one.
    public let message: String
    /// The error behind this one: for `.peerTrustRefused`, TLSTrust's reason.
    public let underlying: (any Error & Sendable)?
    /// For `.peerTrustRefused`: the refused evaluation, when an evaluation was made.
    public let evaluation: TrustEvaluation?

    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil, evaluation: TrustEvaluation? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.evaluation = evaluation
    }

    public var description: String {
        if let underlying, code == .peerTrustRefused || code == .cancelled { return "\(message): \(underlying)" }
        return message
    }
}
