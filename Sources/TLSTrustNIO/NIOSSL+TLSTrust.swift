#if NIO
import NIOCore
import NIOSSL
import TLSTrust

/// A swift-nio-ssl configuration TLSTrust cannot enforce.
public struct TLSTrustConfigurationError: Error, Sendable, CustomStringConvertible {
    /// One line: what is wrong and what to do.
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }

    /// `certificateVerification` is `.none`: swift-nio-ssl then ignores the custom verification
    /// callback's refusal, so every chain would be accepted. `.optionalVerification` is refused
    /// too: it makes the peer's certificate optional, and a peer that presents none is never
    /// evaluated.
    static let verificationDisabled = TLSTrustConfigurationError(
        "certificateVerification is .none or .optionalVerification: under .none swift-nio-ssl ignores a refusal "
            + "from the custom verification callback, and under .optionalVerification a peer may present no certificate, "
            + "so TLSTrust could not refuse a chain; use .noHostnameVerification "
            + "(TLSConfiguration.forTLSTrust() sets it)")
}

extension CertificateVerification {
    /// Whether swift-nio-ssl runs the custom verification callback under this setting.
    var runsCustomVerification: Bool {
        switch self {
        case .none: false
        case .noHostnameVerification, .fullVerification: true
        }
    }
}

extension TLSConfiguration {
    /// This configuration, made fit for TLSTrust's verification callback.
    ///
    /// - `certificateVerification` `.fullVerification` becomes `.noHostnameVerification`: the
    ///   callback replaces BoringSSL's chain checks, and TLSTrust's host check is the one that
    ///   decides. (swift-nio-ssl's own check, run after the handshake under `.fullVerification`,
    ///   accepts a certificate whose IP address SAN matches the peer's address whatever DNS name
    ///   was asked for; and its refusal would not carry TLSTrust's reason.)
    /// - `.none` is refused: swift-nio-ssl ignores the callback's refusal then, and would accept
    ///   every chain; so is `.optionalVerification` (a peer could present no certificate).
    ///
    /// ```swift
    /// let context = try NIOSSLContext(configuration: try TLSConfiguration.makeClientConfiguration().forTLSTrust())
    /// ```
    ///
    /// - Throws: ``TLSTrustConfigurationError`` when `certificateVerification` is `.none`.
    public func forTLSTrust() throws -> TLSConfiguration {
        guard certificateVerification.runsCustomVerification else { throw TLSTrustConfigurationError.verificationDisabled }
        var copy = self
        copy.certificateVerification = .noHostnameVerification
        return copy
    }

    /// `makeClientConfiguration()` made fit for TLSTrust (``forTLSTrust()``).
    public static func makeTLSTrustClientConfiguration() -> TLSConfiguration {
        var configuration = makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        return configuration
    }

    /// `makeServerConfiguration(certificateChain:privateKey:)` that requires a client certificate
    /// and leaves its evaluation to a ``TLSTrustClientCertificateVerifier``.
    public static func makeTLSTrustMutualTLSServerConfiguration(
        certificateChain: [NIOSSLCertificateSource], privateKey: NIOSSLPrivateKeySource
    ) -> TLSConfiguration {
        var configuration = makeServerConfiguration(certificateChain: certificateChain, privateKey: privateKey)
        configuration.certificateVerification = .noHostnameVerification
        return configuration
    }
}

extension NIOSSLContext {
    /// Refuses a context whose verification setting would make swift-nio-ssl ignore TLSTrust.
    func requireTLSTrustVerification() throws {
        guard configuration.certificateVerification.runsCustomVerification else {
            throw TLSTrustConfigurationError.verificationDisabled
        }
    }
}

extension String {
    /// Whether this is an IPv4 or IPv6 literal (which must not be sent as SNI).
    var isIPAddressLiteral: Bool {
        if case .ipAddress = HostIdentity(self) { return true }
        return false
    }
}

extension NIOSSLClientHandler {
    /// A client handler whose server-certificate verification is TLSTrust's.
    ///
    /// Add a ``TLSTrustVerificationHandler`` with the same `record` after it to get TLSTrust's
    /// reason as the pipeline's error; or use
    /// ``NIOCore/ChannelPipeline/SynchronousOperations/addTLSTrustClientHandlers(context:serverHostname:verifier:record:)``,
    /// which adds both.
    ///
    /// - Parameters:
    ///   - context: a context whose `certificateVerification` is not `.none` (see
    ///     ``NIOSSL/TLSConfiguration/forTLSTrust()``).
    ///   - serverHostname: the DNS name or IP literal connected to: TLSTrust validates the chain
    ///     for it; a DNS name is also sent as SNI.
    ///   - verifier: the evaluator, anchors and backend.
    ///   - record: where the outcome is recorded.
    /// - Throws: ``TLSTrustConfigurationError`` for a `.none` context; swift-nio-ssl's errors.
    public convenience init(
        context: NIOSSLContext, serverHostname: String, tlsTrust verifier: TLSTrustVerifier,
        record: TLSTrustVerificationRecord = TLSTrustVerificationRecord()
    ) throws {
        try context.requireTLSTrustVerification()
        try self.init(
            context: context, serverHostname: serverHostname.isIPAddressLiteral ? nil : serverHostname,
            customVerificationCallbackWithMetadata: verifier.clientCallback(forHost: serverHostname, record: record))
    }
}

extension NIOSSLServerHandler {
    /// A server handler whose client-certificate verification is TLSTrust's.
    ///
    /// - Parameters:
    ///   - context: a context that requests a client certificate (`certificateVerification`
    ///     `.noHostnameVerification` or `.fullVerification`; see
    ///     ``NIOSSL/TLSConfiguration/makeTLSTrustMutualTLSServerConfiguration(certificateChain:privateKey:)``).
    ///   - verifier: the CAs client certificates must chain to, and the backend.
    ///   - record: where the outcome is recorded.
    /// - Throws: ``TLSTrustConfigurationError`` for a `.none` context (which would accept any client).
    public convenience init(
        context: NIOSSLContext, tlsTrust verifier: TLSTrustClientCertificateVerifier,
        record: TLSTrustVerificationRecord = TLSTrustVerificationRecord()
    ) throws {
        try context.requireTLSTrustVerification()
        self.init(context: context, customVerificationCallbackWithMetadata: verifier.serverCallback(record: record))
    }
}

extension NIOSSLClientTLSProvider {
    /// A TLS provider for `NIOClientTCPBootstrap` whose server-certificate verification is TLSTrust's.
    ///
    /// The provider serves every connection of its bootstrap, so `record` holds the latest
    /// connection's outcome; to get the reason as the pipeline's error, add a
    /// ``TLSTrustVerificationHandler`` with the same record in the bootstrap's channel initializer.
    ///
    /// - Throws: ``TLSTrustConfigurationError`` for a `.none` context; swift-nio-ssl's errors.
    public init(
        context: NIOSSLContext, serverHostname: String, tlsTrust verifier: TLSTrustVerifier,
        record: TLSTrustVerificationRecord = TLSTrustVerificationRecord()
    ) throws {
        try context.requireTLSTrustVerification()
        try self.init(
            context: context, serverHostname: serverHostname.isIPAddressLiteral ? nil : serverHostname,
            customVerificationCallbackWithMetadata: verifier.clientCallback(forHost: serverHostname, record: record))
    }
}

extension ChannelPipeline.SynchronousOperations {
    /// Adds a TLS client handler whose verification is TLSTrust's, and a
    /// ``TLSTrustVerificationHandler`` after it: one call for a TLSTrust-verified connection.
    ///
    /// ```swift
    /// let verifier = TLSTrustVerifier(evaluator: manager, backend: OpenSSLTrustBackend())
    /// ClientBootstrap(group: group).channelInitializer { channel in
    ///     channel.eventLoop.makeCompletedFuture {
    ///         try channel.pipeline.syncOperations.addTLSTrustClientHandlers(
    ///             context: context, serverHostname: "api.example.com", verifier: verifier)
    ///         try channel.pipeline.syncOperations.addHandler(MyHandler())
    ///     }
    /// }
    /// ```
    ///
    /// After a refusal the app's `errorCaught` gets a ``TLSTrustVerificationFailure`` (TLSTrust's
    /// reason and swift-nio-ssl's error), preceded by the user event ``TLSTrustEvent/refused(_:)``;
    /// the returned record holds the same.
    ///
    /// - Returns: the connection's record.
    /// - Throws: ``TLSTrustConfigurationError`` for a `.none` context; swift-nio-ssl's errors.
    @discardableResult
    public func addTLSTrustClientHandlers(
        context: NIOSSLContext, serverHostname: String, verifier: TLSTrustVerifier,
        record: TLSTrustVerificationRecord = TLSTrustVerificationRecord()
    ) throws -> TLSTrustVerificationRecord {
        let handler = try NIOSSLClientHandler(context: context, serverHostname: serverHostname, tlsTrust: verifier, record: record)
        try addHandler(handler)
        try addHandler(TLSTrustVerificationHandler(record: record))
        return record
    }

    /// Adds a TLS server handler whose client-certificate verification is TLSTrust's, and a
    /// ``TLSTrustVerificationHandler`` after it.
    ///
    /// - Returns: the connection's record.
    /// - Throws: ``TLSTrustConfigurationError`` for a `.none` context.
    @discardableResult
    public func addTLSTrustServerHandlers(
        context: NIOSSLContext, clientVerifier: TLSTrustClientCertificateVerifier,
        record: TLSTrustVerificationRecord = TLSTrustVerificationRecord()
    ) throws -> TLSTrustVerificationRecord {
        try addHandler(try NIOSSLServerHandler(context: context, tlsTrust: clientVerifier, record: record))
        try addHandler(TLSTrustVerificationHandler(record: record))
        return record
    }
}
#endif
