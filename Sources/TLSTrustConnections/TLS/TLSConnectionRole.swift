import TLSTrustCore
import TLSTrustDecisions
/// One connection inside a TLS library: the protocol machinery and nothing that decides.
///
/// A backend implements it over its library; ``TLSStateMachine`` drives it. The role steps the
/// handshake, reports through its ``TLSSessionLink`` the events the core decides on (the peer's
/// chain, a certificate request) and does what the answers say, reads, writes and closes. It
/// never judges a chain, chooses an identity, picks an alert to end a handshake with, or ranks
/// errors: a call that fails throws a ``TLSLibraryFailure`` saying what the library saw, and the
/// state machine makes the connection's `TLSError` from it.
///
/// Every call comes from the connection's thread, one at a time, and reads and writes only
/// through ``TLSSessionLink/channel``.
public protocol TLSConnectionRole: AnyObject {
    /// Runs the library's handshake: true when it has completed, false when it has made a step
    /// and wants to be called again (a library driven one state at a time).
    ///
    /// - Throws: ``TLSLibraryFailure`` when the library ended the handshake.
    func stepHandshake() throws -> Bool

    /// Reads application data: the count, or 0 when the peer closed the connection (close_notify
    /// or end of stream).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int

    /// Writes some of `bytes` (never none) and returns how many.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int

    /// Sends the fatal alert the core chose for a handshake it ended, unless the library has
    /// already sent one of its own for the failed hook.
    func sendFatalAlert(_ alert: TLSAlert)

    /// Sends close_notify, best effort, after a completed handshake.
    func sendCloseNotify()

    /// Frees the library's state, without I/O; called once.
    func release()

    /// What the handshake negotiated, once it has completed.
    var negotiated: TLSNegotiatedParameters { get }

    /// The peer's chain as the library kept it after the handshake, leaf first: for the decision
    /// the core makes when a handshake completed without the library's hook having run.
    var peerChainAfterHandshake: [[UInt8]] { get }
}

/// What a completed handshake agreed on.
public struct TLSNegotiatedParameters: Sendable {
    public var version: TLSVersion?
    /// In the library's naming.
    public var cipherSuite: String?
    public var applicationProtocol: String?
    public var isResumed: Bool

    public init(version: TLSVersion?, cipherSuite: String?, applicationProtocol: String?, isResumed: Bool) {
        self.version = version
        self.cipherSuite = cipherSuite
        self.applicationProtocol = applicationProtocol
        self.isResumed = isResumed
    }
}

/// What a TLS library saw when a call failed, in the core's terms, with the library's own words.
///
/// The kinds: `alertReceived` (the peer sent this fatal alert), `peerClosed` (end of stream or
/// close_notify where records were due), `notTLS` (the peer's bytes are not TLS records),
/// `noPeerCertificate` (the library refused an empty Certificate message before its hook could
/// run), `transport` (the transport failed and no error was kept), `stoppedByCore` (the role
/// stopped because the link refused: its hook failed), `other` (anything else the library reports).
public struct TLSLibraryFailure: Error, Sendable {
    public enum Kind: Sendable, Equatable {
        case alertReceived(TLSAlert), peerClosed, notTLS, noPeerCertificate, transport, stoppedByCore, other
    }

    /// What the library saw, and its own words naming the library (`GnuTLS: Decryption has failed.`).
    public let kind: Kind, message: String

    public init(_ kind: Kind, _ message: String) { (self.kind, self.message) = (kind, message) }
}

/// A ``TLSBackend`` whose connections are ``TLSConnectionRole``s driven by the core's
/// ``TLSStateMachine``: the backend makes a role for a checked ``TLSSessionLink`` and gets
/// ``TLSBackend/makeClientSession(configuration:context:transport:)`` and
/// ``TLSBackend/makeServerSession(configuration:context:transport:)`` from the core.
public protocol TLSLibraryBackend: TLSBackend {
    /// The type of the backend's private-key handles: an identity whose key is of another type
    /// was imported by another backend, and is refused before the connection is made.
    var privateKeyType: any PrivateKeyHandle.Type { get }

    /// Makes the library's connection for `link`, whose settings the core has checked (versions,
    /// ALPN, SNI, stapling, the identity's owner). A server takes its key from
    /// ``TLSSessionLink/serverKey(as:)``.
    func makeConnection(_ link: TLSSessionLink) throws -> any TLSConnectionRole
}

extension TLSLibraryBackend {
    public func makeClientSession(configuration: TLSClientConfiguration, context: TLSHandshakeContext,
                                  transport: any TLSTransport) throws -> any TLSSession {
        try TLSStateMachine(client: configuration, context: context, transport: transport, backend: self)
    }

    public func makeServerSession(configuration: TLSServerConfiguration, context: TLSHandshakeContext,
                                  transport: any TLSTransport) throws -> any TLSSession {
        try TLSStateMachine(server: configuration, context: context, transport: transport, backend: self)
    }
}
