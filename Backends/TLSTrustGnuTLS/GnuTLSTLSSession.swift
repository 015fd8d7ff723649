#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CGnuTLS
import TLSTrust

/// One TLS connection over GnuTLS: a `gnutls_session_t` with its own certificate credentials,
/// reading and writing through ``GnuTLSTransportIO``.
///
/// GnuTLS verifies nothing itself here: `gnutls_session_set_verify_cert` is never called, and the
/// verify function installed with `gnutls_session_set_verify_function` hands the peer's chain, as
/// `gnutls_certificate_get_peers` gives it, to ``TLSHandshakeContext/verifyPeer(presentedChain:protocolVersion:)``.
/// A refusal fails the handshake with `GNUTLS_E_CERTIFICATE_ERROR` before GnuTLS processes another
/// message, and a fatal `bad_certificate` alert is sent.
///
/// OCSP stapling: GnuTLS 3.7 clients send status_request whatever the application says (3.7 has
/// no flag to stop it; `gnutls_ocsp_status_request_enable_client` is called anyway when the
/// configuration asks, to say what is meant). The responses the server stapled are handed to the
/// context only when the configuration asks (``TLSClientConfiguration/asksForStapledOCSPResponse``),
/// so that what the app sees is the same on every backend. GnuTLS runs the verify function after
/// the stapled response has arrived on both versions — under TLS 1.2 after the CertificateStatus
/// message (its handshake state machine receives Certificate, then CertificateStatus, then runs
/// the verify function, then reads ServerKeyExchange), under TLS 1.3 after CertificateVerify,
/// the responses having come in the certificate entries — so the one decision sees them, with no
/// reordering. GnuTLS keeps the raw bytes without judging them (`gnutls_ocsp_status_request_get2`).
/// A server with ``TLSServerConfiguration/stapledOCSPResponse`` staples it from a status function
/// (`gnutls_certificate_set_ocsp_status_request_function`), which hands GnuTLS the bytes as given,
/// unchecked, as the OpenSSL server does.
///
/// Every C object this makes (session, credentials, certificate list) is freed in ``shutdown()``
/// or, failing that, in `deinit`.
final class GnuTLSTLSSession: TLSSession {
    let role: TLSHandshakeContext.Role
    let context: TLSHandshakeContext
    let transport: any TLSTransport

    /// The GnuTLS session; nil once released.
    private(set) var handle: gnutls_session_t?
    private var credentials: gnutls_certificate_credentials_t?
    /// The certificates sent with a client identity (GnuTLS borrows them until the session ends).
    private var clientCertificates: GnuTLSPCertList?
    /// The identity whose key GnuTLS borrows for this session (keeps the `gnutls_privkey_t` alive).
    private var borrowedIdentity: ClientIdentity?
    private let clientAuthentication: TLSClientAuthentication
    /// A client hands the server's stapled OCSP responses to the trust decision.
    private var asksForStapledOCSPResponse = false
    /// The DER OCSP response a server staples when a client asks.
    private var stapledOCSPResponse: [UInt8]?

    /// The error a transport call threw inside a push/pull function, rethrown by the Swift call.
    var transportError: TLSError?
    /// Whether the transport reported end of stream.
    var peerClosedTransport = false
    /// Why the handshake was ended by this side, to choose the alert and the error.
    private var localAbort: LocalAbort?
    /// Whether the server asked this client for a certificate.
    private var certificateRequested = false
    private var handshakeCompleted = false
    private var closeSent = false

    private enum LocalAbort { case trustRefused, identityAborted }

    private(set) var negotiatedVersion: TLSVersion?
    private(set) var cipherSuite: String?
    private(set) var negotiatedApplicationProtocol: String?
    private(set) var isResumed = false

    // MARK: Making sessions

    /// A client session: SNI, ALPN, versions, no resumption, the trust hook and the client
    /// certificate hook.
    init(client configuration: TLSClientConfiguration, context: TLSHandshakeContext, transport: any TLSTransport,
         versions: (TLSVersion, TLSVersion)) throws {
        role = .client
        self.context = context
        self.transport = transport
        clientAuthentication = .none
        if let identity = configuration.identity { _ = try Self.key(of: identity) }
        try makeCredentials()
        gnutls_certificate_set_retrieve_function2(credentials) { session, names, nameCount, _, _, certificates, count, key in
            GnuTLSTLSSession.retrieveClientCertificate(session, names, nameCount, certificates, count, key)
        }
        // GNUTLS_NO_TICKETS: no session ticket is asked for or used; with no session data set, the
        // client never offers resumption, so every handshake reaches the trust decision.
        try makeSession(flags: UInt32(GNUTLS_CLIENT) | UInt32(GNUTLS_NO_TICKETS), versions: versions)
        if let name = ServerNameIndication.hostName(configured: configuration.serverName, host: context.host) {
            let status = name.withCString { gnutls_server_name_set(handle, GNUTLS_NAME_DNS, $0, strlen($0)) }
            guard status >= 0 else { throw setupError("gnutls_server_name_set(\(name))", status) }
        }
        try setApplicationProtocols(configuration.applicationProtocols, serverPrecedence: false)
        if configuration.asksForStapledOCSPResponse {
            asksForStapledOCSPResponse = true
            let status = gnutls_ocsp_status_request_enable_client(handle, nil, 0, nil)
            guard status >= 0 else { throw setupError("gnutls_ocsp_status_request_enable_client", status) }
        }
        gnutls_session_set_verify_function(handle) { GnuTLSTLSSession.verifyPeerCallback($0) }
    }

    /// A server session: the configured identity, and a certificate request when client
    /// authentication is on.
    init(server configuration: TLSServerConfiguration, context: TLSHandshakeContext, transport: any TLSTransport,
         versions: (TLSVersion, TLSVersion)) throws {
        role = .server
        self.context = context
        self.transport = transport
        clientAuthentication = configuration.clientAuthentication
        let key = try Self.key(of: configuration.identity)
        try makeCredentials()
        try setServerIdentity(configuration.identity, key: key)
        if let response = configuration.stapledOCSPResponse {
            guard !response.isEmpty, response.count <= Int(UInt32.max) else {
                throw TLSError(.invalidConfiguration, "the OCSP response to staple is empty or too long")
            }
            stapledOCSPResponse = response
            gnutls_certificate_set_ocsp_status_request_function(credentials, { session, _, response in
                GnuTLSTLSSession.stapleCallback(session, response)
            }, nil)
        }
        if clientAuthentication != .none {
            // The anchors' subjects go into the CertificateRequest as the acceptable CA names. The
            // trust list is used for nothing else: GnuTLS is never asked to verify with it.
            for anchor in configuration.clientAnchors.certificates {
                let status = GnuTLSLibrary.withDatum(anchor.derEncoded) {
                    gnutls_certificate_set_x509_trust_mem(credentials, &$0, GNUTLS_X509_FMT_DER)
                }
                guard status >= 0 else { throw setupError("gnutls_certificate_set_x509_trust_mem", status) }
            }
        }
        try makeSession(flags: UInt32(GNUTLS_SERVER) | UInt32(GNUTLS_NO_TICKETS), versions: versions)
        try setApplicationProtocols(configuration.applicationProtocols, serverPrecedence: true)
        if clientAuthentication != .none {
            // REQUEST even for .required: an absent certificate then reaches the verify function,
            // where the core's decision (verifyPeer([]) → .noPeerCertificate) refuses it.
            gnutls_certificate_server_set_request(handle, GNUTLS_CERT_REQUEST)
            gnutls_session_set_verify_function(handle) { GnuTLSTLSSession.verifyPeerCallback($0) }
        } else {
            gnutls_certificate_server_set_request(handle, GNUTLS_CERT_IGNORE)
        }
    }

    deinit { release() }

    private func makeCredentials() throws {
        _ = GnuTLSLibrary.initialized
        var made: gnutls_certificate_credentials_t?
        let status = gnutls_certificate_allocate_credentials(&made)
        guard status >= 0, let made else { throw setupError("gnutls_certificate_allocate_credentials", status) }
        credentials = made
    }

    private func makeSession(flags: UInt32, versions: (TLSVersion, TLSVersion)) throws {
        var made: gnutls_session_t?
        let status = gnutls_init(&made, flags)
        guard status >= 0, let made else { throw setupError("gnutls_init", status) }
        handle = made
        gnutls_session_set_ptr(made, Unmanaged.passUnretained(self).toOpaque())

        let priority = Self.priorityString(versions)
        var errorPosition: UnsafePointer<CChar>?
        let set = gnutls_priority_set_direct(made, priority, &errorPosition)
        guard set >= 0 else { throw setupError("gnutls_priority_set_direct(\"\(priority)\")", set) }
        let credited = gnutls_credentials_set(made, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials))
        guard credited >= 0 else { throw setupError("gnutls_credentials_set", credited) }
        // The handshake deadline is the transport's; GnuTLS's own handshake timer stays off.
        gnutls_handshake_set_timeout(made, 0)
        GnuTLSTransportIO.install(on: made, owner: self)
    }

    /// `NORMAL` with the protocol versions limited to the configured range.
    static func priorityString(_ versions: (TLSVersion, TLSVersion)) -> String {
        let enabled = TLSVersion.allCases.filter { $0 >= versions.0 && $0 <= versions.1 }.reversed()
        let names = enabled.map { $0 == .tls13 ? "+VERS-TLS1.3" : "+VERS-TLS1.2" }
        return (["NORMAL", "-VERS-ALL"] + names).joined(separator: ":")
    }

    private func setApplicationProtocols(_ protocols: [String], serverPrecedence: Bool) throws {
        guard !protocols.isEmpty else { return }
        let encoded = protocols.map { Array($0.utf8) }
        guard encoded.allSatisfy({ (1...255).contains($0.count) }) else {
            throw TLSError(.invalidConfiguration, "an ALPN protocol name must be 1 to 255 bytes long: \(protocols)")
        }
        // GnuTLS copies the names.
        let status: Int32 = Self.withDatums(encoded) { datums in
            gnutls_alpn_set_protocols(handle, datums.baseAddress, UInt32(datums.count),
                                      serverPrecedence ? UInt32(GNUTLS_ALPN_SERVER_PRECEDENCE.rawValue) : 0)
        }
        guard status >= 0 else { throw setupError("gnutls_alpn_set_protocols", status) }
    }

    /// The server's chain and a copy of its key, given to the credentials with
    /// `gnutls_certificate_set_x509_key` (which copies both, so nothing here is borrowed).
    private func setServerIdentity(_ identity: ClientIdentity, key: GnuTLSPrivateKey) throws {
        let parsed = try identity.certificates.map { try GnuTLSCertificate(derEncoded: $0.derEncoded) }
        var x509Key: gnutls_x509_privkey_t?
        let exported = gnutls_privkey_export_x509(key.ref, &x509Key)
        guard exported >= 0, let x509Key else {
            throw TLSError(.invalidConfiguration, "GnuTLS cannot use the server's private key: \(GnuTLSLibrary.errorText(exported))")
        }
        defer { gnutls_x509_privkey_deinit(x509Key) }
        var list: [gnutls_x509_crt_t?] = parsed.map(\.ref)
        let status = withExtendedLifetime(parsed) {
            gnutls_certificate_set_x509_key(credentials, &list, Int32(list.count), x509Key)
        }
        guard status >= 0 else {
            throw TLSError(.invalidConfiguration, "GnuTLS refuses the server's certificate and key: \(GnuTLSLibrary.errorText(status))")
        }
    }

    /// The identity's key as this backend's handle.
    static func key(of identity: ClientIdentity) throws -> GnuTLSPrivateKey {
        guard let key = identity.privateKey as? GnuTLSPrivateKey else {
            throw TLSError(.invalidConfiguration,
                           "the identity \(identity.certificate.subject) was not imported by the GnuTLS backend (its key is a \(type(of: identity.privateKey))); import it with GnuTLSTrustBackend().importPKCS12 or importIdentity")
        }
        return key
    }

    private func setupError(_ call: String, _ status: Int32) -> TLSError {
        TLSError(.handshakeFailed, "GnuTLS: \(call) failed: \(GnuTLSLibrary.errorText(status))")
    }

    // MARK: TLSSession

    func handshake() throws {
        guard let session = handle else { throw TLSError(.connectionClosed, "the GnuTLS session is closed") }
        var retries = 0
        while true {
            transportError = nil
            let status = gnutls_handshake(session)
            if status >= 0 { break }
            if transportError == nil && gnutls_error_is_fatal(status) == 0 && retries < 64 {
                // A warning alert (e.g. unrecognized_name) or an interrupted call: go on.
                retries += 1
                continue
            }
            throw handshakeFailure(status)
        }
        handshakeCompleted = true
        switch gnutls_protocol_get_version(session) {
        case GNUTLS_TLS1_3: negotiatedVersion = .tls13
        case GNUTLS_TLS1_2: negotiatedVersion = .tls12
        default: negotiatedVersion = nil
        }
        if let name = gnutls_ciphersuite_get(session) { cipherSuite = String(cString: name) }
        var selected = gnutls_datum_t(data: nil, size: 0)
        if gnutls_alpn_get_selected_protocol(session, &selected) >= 0, let data = selected.data, selected.size > 0 {
            negotiatedApplicationProtocol = String(decoding: UnsafeBufferPointer(start: data, count: Int(selected.size)), as: UTF8.self)
        }
        isResumed = gnutls_session_is_resumed(session) != 0
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let session = handle, handshakeCompleted else { throw TLSError(.connectionClosed, "the GnuTLS session is closed") }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var retries = 0
        while true {
            transportError = nil
            let n = gnutls_record_recv(session, base, buffer.count)
            if n >= 0 { return n }  // 0: close_notify
            let status = Int32(n)
            if let transportError { throw transportError }
            switch status {
            case GNUTLS_E_PREMATURE_TERMINATION:
                return 0  // end of stream without close_notify
            case GNUTLS_E_REHANDSHAKE:
                // Renegotiation is not offered: refuse it politely and keep reading.
                _ = gnutls_alert_send(session, GNUTLS_AL_WARNING, GNUTLS_A_NO_RENEGOTIATION)
            case GNUTLS_E_AGAIN, GNUTLS_E_INTERRUPTED, GNUTLS_E_WARNING_ALERT_RECEIVED:
                break
            default:
                if peerClosedTransport && status != GNUTLS_E_FATAL_ALERT_RECEIVED { return 0 }
                throw recordFailure(status, reading: true)
            }
            retries += 1
            if retries > 64 { throw recordFailure(status, reading: true) }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let session = handle, handshakeCompleted else { throw TLSError(.connectionClosed, "the GnuTLS session is closed") }
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        var retries = 0
        while offset < bytes.count {
            transportError = nil
            let n = gnutls_record_send(session, base + offset, bytes.count - offset)
            if n > 0 { offset += n; continue }
            if let transportError { throw transportError }
            let status = Int32(n)
            if (status == GNUTLS_E_AGAIN || status == GNUTLS_E_INTERRUPTED) && retries < 64 {
                retries += 1
                continue
            }
            throw recordFailure(status, reading: false)
        }
    }

    func shutdown() {
        if let session = handle, handshakeCompleted, !closeSent, transportError == nil {
            closeSent = true
            // close_notify only; the transport is closed by the caller, so no reply is awaited.
            _ = gnutls_bye(session, GNUTLS_SHUT_WR)
        }
        release()
    }

    private func release() {
        if let session = handle {
            handle = nil
            gnutls_deinit(session)
        }
        if let credentials {
            self.credentials = nil
            gnutls_certificate_free_credentials(credentials)
        }
        clientCertificates = nil
        borrowedIdentity = nil
    }

    // MARK: Trust (the verify function)

    /// GnuTLS calls this once the peer's Certificate (and, under TLS 1.3, CertificateVerify) has
    /// been received and before the handshake goes on; non-zero fails it with
    /// `GNUTLS_E_CERTIFICATE_ERROR`.
    static func verifyPeerCallback(_ session: gnutls_session_t?) -> Int32 {
        guard let session, let pointer = gnutls_session_get_ptr(session) else { return -1 }
        let owner = Unmanaged<GnuTLSTLSSession>.fromOpaque(pointer).takeUnretainedValue()
        return owner.decidePeerTrust(session) ? 0 : -1
    }

    private func decidePeerTrust(_ session: gnutls_session_t) -> Bool {
        var chain: [[UInt8]] = []
        if gnutls_certificate_type_get2(session, GNUTLS_CTYPE_PEERS) == GNUTLS_CRT_X509 {
            var count: UInt32 = 0
            if let list = gnutls_certificate_get_peers(session, &count) {
                for i in 0..<Int(count) {
                    let datum = list[i]
                    guard let data = datum.data else { chain.append([]); continue }
                    chain.append(Array(UnsafeBufferPointer(start: data, count: Int(datum.size))))
                }
            }
        }
        // A client that sends no certificate to a server that only asks for one is accepted
        // without a trust decision; every other case is the core's to decide.
        if role == .server && chain.isEmpty && clientAuthentication == .optional { return true }
        let accepted = context.verifyPeer(presentedChain: chain, protocolVersion: currentVersion(session),
                                          stapledOCSPResponses: stapledOCSPResponses(session, chainLength: chain.count))
        if !accepted { localAbort = .trustRefused }
        return accepted
    }

    /// The OCSP responses the server stapled, in the order of the certificates they came with
    /// (the leaf's first; a TLS 1.3 server may staple one per certificate, a TLS 1.2 server only
    /// the leaf's). Certificates without one are skipped. Empty on a server, and when the
    /// configuration did not ask.
    private func stapledOCSPResponses(_ session: gnutls_session_t, chainLength: Int) -> [[UInt8]] {
        guard role == .client, asksForStapledOCSPResponse else { return [] }
        var responses: [[UInt8]] = []
        for index in 0..<max(chainLength, 1) {
            var datum = gnutls_datum_t(data: nil, size: 0)
            // GnuTLS keeps the datum (no copy, nothing to free); it is copied out here.
            guard gnutls_ocsp_status_request_get2(session, UInt32(index), &datum) >= 0,
                  let data = datum.data, datum.size > 0 else { continue }
            responses.append(Array(UnsafeBufferPointer(start: data, count: Int(datum.size))))
        }
        return responses
    }

    /// A server's status function, run when a client asked for stapling: hands GnuTLS a copy of
    /// the configured response in memory of its own allocator (it frees it after sending).
    static func stapleCallback(_ session: gnutls_session_t?, _ response: UnsafeMutablePointer<gnutls_datum_t>?) -> Int32 {
        guard let session, let response, let pointer = gnutls_session_get_ptr(session) else { return GNUTLS_E_INTERNAL_ERROR }
        let owner = Unmanaged<GnuTLSTLSSession>.fromOpaque(pointer).takeUnretainedValue()
        guard let bytes = owner.stapledOCSPResponse else { return GNUTLS_E_NO_CERTIFICATE_STATUS }
        guard let copy = CGnuTLS_malloc(bytes.count)?.assumingMemoryBound(to: UInt8.self) else { return GNUTLS_E_MEMORY_ERROR }
        copy.initialize(from: bytes, count: bytes.count)
        response.pointee = gnutls_datum_t(data: copy, size: UInt32(bytes.count))
        return 0
    }

    private func currentVersion(_ session: gnutls_session_t) -> TLSVersion? {
        switch gnutls_protocol_get_version(session) {
        case GNUTLS_TLS1_3: .tls13
        case GNUTLS_TLS1_2: .tls12
        default: nil
        }
    }

    // MARK: Client certificates (the retrieve function)

    /// GnuTLS calls this when the server's CertificateRequest arrives, with the DER names it
    /// carries. Under TLS 1.2 that is after the server's chain was accepted; under TLS 1.3 the
    /// request comes before the server's Certificate, so the choice is made first — but nothing is
    /// sent until the verify function has accepted the server.
    static func retrieveClientCertificate(
        _ session: gnutls_session_t?, _ names: UnsafePointer<gnutls_datum_t>?, _ nameCount: Int32,
        _ certificatesOut: UnsafeMutablePointer<UnsafeMutablePointer<gnutls_pcert_st>?>?,
        _ countOut: UnsafeMutablePointer<UInt32>?, _ keyOut: UnsafeMutablePointer<gnutls_privkey_t?>?
    ) -> Int32 {
        guard let session, let pointer = gnutls_session_get_ptr(session),
              let certificatesOut, let countOut, let keyOut else { return -1 }
        let owner = Unmanaged<GnuTLSTLSSession>.fromOpaque(pointer).takeUnretainedValue()
        var acceptable: [[UInt8]] = []
        if let names, nameCount > 0 {
            for i in 0..<Int(nameCount) {
                guard let data = names[i].data else { continue }
                acceptable.append(Array(UnsafeBufferPointer(start: data, count: Int(names[i].size))))
            }
        }
        certificatesOut.pointee = nil
        countOut.pointee = 0
        keyOut.pointee = nil
        guard let choice = owner.chooseClientIdentity(session, acceptableCANames: acceptable) else { return -1 }
        if let list = choice.0, let key = choice.1 {
            certificatesOut.pointee = list.pointer
            countOut.pointee = UInt32(list.count)
            keyOut.pointee = key
        }
        return 0
    }

    /// Nil aborts the handshake; (nil, nil) sends no certificate.
    private func chooseClientIdentity(_ session: gnutls_session_t, acceptableCANames: [[UInt8]])
        -> (GnuTLSPCertList?, gnutls_privkey_t?)? {
        certificateRequested = true
        switch context.clientIdentity(acceptableCANames: acceptableCANames, protocolVersion: currentVersion(session)) {
        case .sendNone:
            return (nil, nil)
        case .abort:
            localAbort = .identityAborted
            return nil
        case .send(let identity):
            do {
                let key = try Self.key(of: identity)
                let list = try GnuTLSPCertList(identity.certificates)
                clientCertificates = list
                borrowedIdentity = identity
                return (list, key.ref)
            } catch {
                context.recordFailure(error as? TLSError
                    ?? TLSError(.invalidConfiguration, "GnuTLS cannot use the client identity: \(error)"))
                localAbort = .identityAborted
                return nil
            }
        }
    }

    // MARK: Errors

    /// The error for a failed `gnutls_handshake`, after sending the fitting alert.
    private func handshakeFailure(_ status: Int32) -> TLSError {
        if let transportError { return transportError }
        let text = GnuTLSLibrary.errorText(status)
        if let localAbort {
            let alert = localAbort == .trustRefused ? GNUTLS_A_BAD_CERTIFICATE : GNUTLS_A_HANDSHAKE_FAILURE
            sendFatalAlert(alert)
            if let failure = context.failure { return failure }
            switch localAbort {
            case .trustRefused:
                return TLSError(.peerTrustRefused, "the \(role == .client ? "server" : "client")'s certificate chain was refused (GnuTLS: \(text))")
            case .identityAborted:
                return TLSError(.cancelled, "the client certificate challenge ended the handshake (GnuTLS: \(text))")
            }
        }
        if status == GNUTLS_E_FATAL_ALERT_RECEIVED { return alertReceived(during: "the handshake") }
        if peerClosedTransport || status == GNUTLS_E_PREMATURE_TERMINATION {
            return TLSError(.connectionClosed, "the peer closed the connection during the handshake (GnuTLS: \(text))")
        }
        if Self.isFramingError(status) {
            if let handle { _ = gnutls_alert_send_appropriate(handle, status) }
            return TLSError(.protocolError, "the peer did not speak TLS: GnuTLS: \(text)")
        }
        if let handle { _ = gnutls_alert_send_appropriate(handle, status) }
        return TLSError(.handshakeFailed, "GnuTLS handshake failed: \(text)")
    }

    /// The error for a failed record read or write after the handshake.
    private func recordFailure(_ status: Int32, reading: Bool) -> TLSError {
        if let transportError { return transportError }
        let text = GnuTLSLibrary.errorText(status)
        if status == GNUTLS_E_FATAL_ALERT_RECEIVED { return alertReceived(during: "the connection") }
        if status == GNUTLS_E_PREMATURE_TERMINATION || status == GNUTLS_E_INVALID_SESSION || peerClosedTransport {
            return TLSError(.connectionClosed, "the connection is closed (GnuTLS: \(text))")
        }
        if Self.isFramingError(status) {
            return TLSError(.protocolError, "GnuTLS \(reading ? "read" : "write") failed: the peer sent data that is not TLS: \(text)")
        }
        return TLSError(.protocolError, "GnuTLS \(reading ? "read" : "write") failed: \(text)")
    }

    /// The peer's fatal alert, as an error: a client whose certificate (or its absence) the server
    /// refused gets `.clientCertificateRejected` — under TLS 1.3 that can arrive after the client's
    /// handshake has finished, on the first read.
    private func alertReceived(during phase: String) -> TLSError {
        let alert = handle.map { gnutls_alert_get($0) } ?? GNUTLS_A_CLOSE_NOTIFY
        let name = gnutls_alert_get_name(alert).map { String(cString: $0) } ?? "alert \(alert.rawValue)"
        if role == .client && certificateRequested && Self.certificateAlerts.contains(alert.rawValue) {
            let sent = context.sentIdentity == nil ? "the absence of a client certificate" : "the client certificate"
            return TLSError(.clientCertificateRejected, "the server refused \(sent): it sent the fatal alert \"\(name)\" during \(phase)")
        }
        return TLSError(.handshakeFailed, "the peer ended \(phase) with the fatal alert \"\(name)\" (GnuTLS)")
    }

    private static let certificateAlerts: Set<UInt32> = [
        GNUTLS_A_HANDSHAKE_FAILURE, GNUTLS_A_BAD_CERTIFICATE, GNUTLS_A_UNSUPPORTED_CERTIFICATE,
        GNUTLS_A_CERTIFICATE_REVOKED, GNUTLS_A_CERTIFICATE_EXPIRED, GNUTLS_A_CERTIFICATE_UNKNOWN,
        GNUTLS_A_UNKNOWN_CA, GNUTLS_A_ACCESS_DENIED, GNUTLS_A_CERTIFICATE_REQUIRED,
    ].map(\.rawValue).reduce(into: []) { $0.insert($1) }

    /// Record-layer errors that mean the bytes were not TLS at all.
    private static func isFramingError(_ status: Int32) -> Bool {
        status == GNUTLS_E_UNSUPPORTED_VERSION_PACKET || status == GNUTLS_E_UNEXPECTED_PACKET_LENGTH
            || status == GNUTLS_E_RECORD_OVERFLOW || status == GNUTLS_E_UNEXPECTED_PACKET
    }

    private func sendFatalAlert(_ alert: gnutls_alert_description_t) {
        guard let handle, transportError == nil else { return }
        _ = gnutls_alert_send(handle, GNUTLS_AL_FATAL, alert)
    }

    // MARK: Helpers

    static func withDatums<R>(_ values: [[UInt8]], _ body: (UnsafeBufferPointer<gnutls_datum_t>) -> R) -> R {
        let storage = values.map { value -> UnsafeMutableBufferPointer<UInt8> in
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, value.count))
            _ = buffer.initialize(from: value)
            return buffer
        }
        defer { storage.forEach { $0.deallocate() } }
        let datums = zip(storage, values).map { gnutls_datum_t(data: $0.0.baseAddress, size: UInt32($0.1.count)) }
        return datums.withUnsafeBufferPointer(body)
    }
}

/// A `gnutls_pcert_st` array made from DER certificates, for the retrieve function (GnuTLS
/// borrows it for the session; `deinit` frees each entry and the array).
final class GnuTLSPCertList {
    let pointer: UnsafeMutablePointer<gnutls_pcert_st>
    let count: Int

    init(_ certificates: [Certificate]) throws {
        guard !certificates.isEmpty else { throw TLSError(.invalidConfiguration, "the identity has no certificate") }
        let list = UnsafeMutablePointer<gnutls_pcert_st>.allocate(capacity: certificates.count)
        var made = 0
        for certificate in certificates {
            let status = GnuTLSLibrary.withDatum(certificate.derEncoded) {
                gnutls_pcert_import_x509_raw(list + made, &$0, GNUTLS_X509_FMT_DER, 0)
            }
            guard status >= 0 else {
                for i in 0..<made { gnutls_pcert_deinit(list + i) }
                list.deallocate()
                throw TLSError(.invalidConfiguration, "GnuTLS cannot load the certificate \(certificate.subject): \(GnuTLSLibrary.errorText(status))")
            }
            made += 1
        }
        pointer = list
        count = made
    }

    deinit {
        for i in 0..<count { gnutls_pcert_deinit(pointer + i) }
        pointer.deallocate()
    }
}
