import TLSTrustCore
import TLSTrustDecisions
/// The one TLS session of the core: the lifecycle of a connection and the rules of its
/// handshake, whichever library runs the protocol underneath (a ``TLSConnectionRole``).
///
/// ```
///   ready ──handshake()──▶ handshaking ──completed, peer judged──▶ established ──shutdown()──▶ closed
///                              │ failed                               │ failed (not a timeout)     ▲
///                              ▼                                      ▼                            │
///                            failed ─────────────────────────────────────────────shutdown()────────┘
/// ```
///
/// What it decides, once for every backend:
/// - **Settings.** The version range against the backend's, ALPN names (``TLSApplicationProtocols``),
///   the SNI name (``ServerNameIndication``), stapling against ``TLSBackend/supportsOCSPStapling``,
///   the SCT list extension against ``TLSBackend/supportsSignedCertificateTimestamps``,
///   and identity ownership: an identity whose key another backend imported is refused at
///   creation, before any byte is sent.
/// - **Versions, on a server.** A ClientHello that offers no version the server accepts is refused
///   with protocol_version before the library reads it.
/// - **The peer is judged.** Through ``TLSSessionLink/peerPresented(_:protocolVersion:stapledOCSPResponses:signedCertificateTimestampList:)``
///   from the library's hook; a handshake that completes without the hook having run (no
///   Certificate exchanged) is judged on the chain the library kept before any data moves.
/// - **The alert.** A handshake the core ended gets the alert the link chose.
/// - **Which error wins.** TLSTrust's own reason (``TLSHandshakeContext/failure``), then the
///   transport's error, then what the library saw: a peer's alert (a client-certificate refusal
///   when ``TLSAlert/refusesClientCertificate`` and the client was asked for one), the peer
///   closing, bytes that are not TLS, the library's words.
/// - **Close.** close_notify only after a completed handshake that has not failed; the library's
///   state is freed once.
public final class TLSStateMachine: TLSSession {
    /// Where a connection is in its life.
    public enum State: Sendable { case ready, handshaking, established, failed, closed }

    /// Where this connection is in its life.
    public private(set) var state = State.ready
    /// The core's side of the connection.
    public let link: TLSSessionLink
    private let role: any TLSConnectionRole
    private var parameters: TLSNegotiatedParameters?

    /// The most steps a handshake may take; a library that keeps asking for more is stuck.
    private static let stepBudget = 1_000

    // MARK: Making sessions

    /// A client session on `backend`.
    public convenience init<Backend: TLSLibraryBackend>(client configuration: TLSClientConfiguration, context: TLSHandshakeContext,
                                                        transport: any TLSTransport, backend: Backend) throws {
        let versions = try backend.checkVersions(minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        if configuration.requestsOCSPStapling && !backend.supportsOCSPStapling {
            // An explicit request dropped silently would look like a server that staples nothing.
            throw TLSError(.unsupported, "\(backend.libraryVersion) cannot request OCSP stapling (status_request): it has no client-side stapling; leave requestsOCSPStapling off (with revocation on, the engine then judges without a stapled response)")
        }
        if let identity = configuration.identity {
            try TLSSessionLink.checkOwner(of: identity, for: "the client configuration", backend: backend)
        }
        let link = TLSSessionLink(
            side: .client, context: context, transport: transport, versions: versions.0...versions.1,
            applicationProtocols: try TLSApplicationProtocols(configuration.applicationProtocols),
            serverNameIndication: ServerNameIndication.hostName(configured: configuration.serverName, host: context.host),
            asksForStapledOCSPResponse: configuration.asksForStapledOCSPResponse && backend.supportsOCSPStapling,
            stapledOCSPResponse: nil,
            asksForSignedCertificateTimestamps: configuration.asksForSignedCertificateTimestamps
                && backend.asksForSignedCertificateTimestamps(upTo: versions.1),
            clientAuthentication: .none, acceptableClientCAs: [], serverIdentity: nil)
        self.init(link: link, role: try backend.makeConnection(link))
    }

    /// A server session on `backend`.
    public convenience init<Backend: TLSLibraryBackend>(server configuration: TLSServerConfiguration, context: TLSHandshakeContext,
                                                        transport: any TLSTransport, backend: Backend) throws {
        let versions = try backend.checkVersions(minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        if let response = configuration.stapledOCSPResponse {
            guard backend.supportsOCSPStapling else {
                throw TLSError(.unsupported, "\(backend.libraryVersion) cannot staple an OCSP response (status_request): it has no server-side stapling")
            }
            // OCSPResponse<1..2^24-1> in CertificateStatus and in a TLS 1.3 certificate entry.
            guard (1..<(1 << 24)).contains(response.count) else {
                throw TLSError(.invalidConfiguration, "the OCSP response to staple is \(response.count) bytes long; it must be 1 to 16777215")
            }
        }
        try TLSSessionLink.checkOwner(of: configuration.identity, for: "the server configuration", backend: backend)
        let link = TLSSessionLink(
            side: .server, context: context, transport: transport, versions: versions.0...versions.1,
            applicationProtocols: try TLSApplicationProtocols(configuration.applicationProtocols), serverNameIndication: nil,
            asksForStapledOCSPResponse: false, stapledOCSPResponse: configuration.stapledOCSPResponse,
            clientAuthentication: configuration.clientAuthentication,
            acceptableClientCAs: configuration.clientAuthentication == .none ? [] : configuration.clientAnchors.certificates,
            serverIdentity: configuration.identity)
        self.init(link: link, role: try backend.makeConnection(link))
    }

    private init(link: TLSSessionLink, role: any TLSConnectionRole) {
        self.link = link
        self.role = role
    }

    deinit {
        if state != .closed { role.release() }
    }

    // MARK: TLSSession

    public func handshake() throws {
        guard state == .ready else { throw TLSError(.invalidConfiguration, "the handshake of this session has already run") }
        state = .handshaking
        link.channel.clearPendingError()
        if link.side == .server, let refusal = refusalOfOfferedVersions() {
            state = .failed
            throw refusal
        }
        do {
            var steps = 0
            while try !role.stepHandshake() {
                steps += 1
                guard steps < Self.stepBudget else {
                    throw TLSLibraryFailure(.other, "the handshake took more than \(Self.stepBudget) steps")
                }
            }
        } catch {
            state = .failed
            throw failure(error, handshaking: true)
        }
        let negotiated = role.negotiated
        if link.peerDecision == nil && (link.side == .client || link.clientAuthentication != .none) {
            // Fail closed: a handshake that ended without the library's hook (no Certificate
            // exchanged) still gets the decision, before any data moves.
            _ = link.peerPresented(role.peerChainAfterHandshake, protocolVersion: negotiated.version)
        }
        if link.peerDecision == false {
            state = .failed
            role.sendFatalAlert(link.alertToSend ?? .badCertificate)
            throw link.context.failure ?? TLSError(.peerTrustRefused, "the \(link.peerName)'s chain was not accepted")
        }
        parameters = negotiated
        state = .established
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try checkEstablished()
        guard buffer.count > 0 else { return 0 }
        link.channel.clearPendingError()
        do {
            return try role.read(into: buffer)
        } catch {
            throw dataFailure(error, doing: "reading")
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try checkEstablished()
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            link.channel.clearPendingError()
            do {
                offset += try role.write(UnsafeRawBufferPointer(start: base + offset, count: bytes.count - offset))
            } catch {
                throw dataFailure(error, doing: "writing")
            }
        }
    }

    public func shutdown() {
        guard state != .closed else { return }
        if state == .established {
            link.channel.clearPendingError()
            role.sendCloseNotify()
        }
        state = .closed
        role.release()
    }

    public var negotiatedVersion: TLSVersion? { parameters?.version }
    public var cipherSuite: String? { parameters?.cipherSuite }
    public var negotiatedApplicationProtocol: String? { parameters?.applicationProtocol }
    public var isResumed: Bool { parameters?.isResumed ?? false }

    private func checkEstablished() throws {
        guard state == .established else {
            throw TLSError(.connectionClosed, state == .ready || state == .handshaking ? "the handshake has not completed" : "the connection is closed")
        }
    }

    // MARK: Versions

    /// A server reads the client's first record before its library does: a ClientHello that
    /// offers no version this server accepts is refused here, with protocol_version (RFC 8446
    /// §4.2.1), the same on every backend. Anything else goes to the library as it arrived.
    private func refusalOfOfferedVersions() -> TLSError? {
        guard let record = link.channel.readFirstRecord(), let offered = OfferedVersions.inRecord(record) else { return nil }
        let accepted = TLSVersion.allCases.filter(link.versions.contains)
        guard !accepted.contains(where: { offered.contains($0.wireValue) }) else { return nil }
        // A plaintext alert record, in the record version the client's ClientHello used.
        let alert: [UInt8] = [21, record[1], record[2], 0, 2, 2, TLSAlert.protocolVersion.rawValue]
        _ = alert.withUnsafeBytes { link.channel.send($0) }
        let names = offered.sorted().map { value -> String in
            if let version = TLSVersion.allCases.first(where: { $0.wireValue == value }) { return version.rawValue }
            let hex = String(value, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return TLSError(.handshakeFailed, "the client offers no TLS version this server accepts (it offers \(names.joined(separator: ", ")); the server \(accepted.map(\.rawValue).joined(separator: ", "))): sent the fatal alert protocol_version")
    }

    // MARK: Which error wins

    /// A failed read or write ends the connection, except a read or write that ran out of time:
    /// the library keeps what it had, and the call may be made again.
    private func dataFailure(_ error: any Error, doing what: String) -> TLSError {
        let failure = failure(error, handshaking: false, doing: what)
        if failure.code != .timedOut { state = .failed }
        return failure
    }

    private func failure(_ error: any Error, handshaking: Bool, doing what: String = "") -> TLSError {
        let transportError = link.channel.pendingError
        if handshaking, transportError == nil, let alert = link.alertToSend { role.sendFatalAlert(alert) }
        if handshaking, let failure = link.context.failure { return failure }
        if let transportError { return transportError }
        guard let library = error as? TLSLibraryFailure else {
            return error as? TLSError ?? TLSError(handshaking ? .handshakeFailed : .protocolError, "\(error)")
        }
        let phase = handshaking ? "during the handshake" : "while \(what)"
        var kind = library.kind
        if kind == .other, handshaking, let alert = link.channel.plaintextFatalAlert {
            // The library could not read the peer's last record; it was an alert in plaintext.
            kind = .alertReceived(alert)
        }
        switch kind {
        case .alertReceived(let alert):
            if link.side == .client && alert.refusesClientCertificate && link.context.challenges.contains(.clientCertificate) {
                // Under TLS 1.3 the refusal can arrive after the client's handshake has finished,
                // on the first read.
                let sent = link.context.sentIdentity == nil ? "the absence of a client certificate" : "the client certificate"
                return TLSError(.clientCertificateRejected, "the server refused \(sent): it sent the fatal alert \(alert) \(phase) (\(library.message))")
            }
            return TLSError(handshaking ? .handshakeFailed : .protocolError, "the peer sent the fatal alert \(alert) \(phase) (\(library.message))")
        case .peerClosed:
            return TLSError(.connectionClosed, "the \(link.peerName) closed the connection \(phase) (\(library.message))")
        case .notTLS:
            return TLSError(.protocolError, "the \(link.peerName) did not speak TLS (\(library.message))")
        case .noPeerCertificate:
            // The library refused the empty Certificate message itself; the decision is still
            // recorded where every other one is.
            if handshaking {
                _ = link.peerPresented([], protocolVersion: nil)
                if let failure = link.context.failure { return failure }
            }
            return TLSError(.noPeerCertificate, "the \(link.peerName) presented no certificate (\(library.message))")
        case .transport:
            return TLSError(.transportFailure, "the transport failed \(phase) (\(library.message))")
        case .stoppedByCore:
            return link.context.failure ?? TLSError(.peerTrustRefused, "the \(link.peerName)'s chain was refused (\(library.message))")
        case .other:
            return TLSError(handshaking ? .handshakeFailed : .protocolError, library.message)
        }
    }
}
