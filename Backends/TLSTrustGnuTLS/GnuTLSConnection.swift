#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CGnuTLS
import TLSTrust

/// One TLS connection over GnuTLS: a `gnutls_session_t` with its own certificate credentials,
/// reading and writing through `GnuTLSTransportIO`; the `TLSConnectionRole` the core's
/// `TLSStateMachine` drives.
///
/// GnuTLS verifies nothing itself here: `gnutls_session_set_verify_cert` is never called, and the
/// verify function installed with `gnutls_session_set_verify_function` hands the peer's chain, as
/// `gnutls_certificate_get_peers` gives it, to the link. A refusal fails the handshake with
/// `GNUTLS_E_CERTIFICATE_ERROR` before GnuTLS processes another message, and the core's alert is sent.
///
/// OCSP stapling: GnuTLS 3.7 clients send status_request whatever the application says (3.7 has
/// no flag to stop it; `gnutls_ocsp_status_request_enable_client` is called anyway when the
/// link asks, to say what is meant); the link hands on what was stapled only when it asked.
/// GnuTLS runs the verify function after the stapled response has arrived on both versions —
/// under TLS 1.2 after the CertificateStatus message (its handshake state machine receives
/// Certificate, then CertificateStatus, then runs the verify function, then reads
/// ServerKeyExchange), under TLS 1.3 after CertificateVerify, the responses having come in the
/// certificate entries — so the one decision sees them, with no reordering. GnuTLS keeps the raw
/// bytes without judging them (`gnutls_ocsp_status_request_get2`). A server staples
/// `TLSSessionLink/stapledOCSPResponse` from a status function
/// (`gnutls_certificate_set_ocsp_status_request_function`), as given, unchecked.
///
/// SCTs in the handshake: a client that asks registers `signed_certificate_timestamp` (type 18,
/// which GnuTLS 3.7 does not implement) on its session (`gnutls_session_ext_register`), sends it
/// empty and keeps the server's extension_data as raw bytes. Under TLS 1.2 the list arrives in
/// ServerHello, before Certificate, and reaches the one decision. Under TLS 1.3 a server puts it
/// in the leaf's certificate entry, which GnuTLS 3.7 refuses with "An illegal TLS extension was
/// received", so the link asks only when the client's versions stop at TLS 1.2
/// (`GnuTLSTrustBackend.asksForSignedCertificateTimestamps(upTo:)`).
///
/// Every C object this makes (session, credentials, certificate list) is freed in `release()`
/// or, failing that, in `deinit`.
final class GnuTLSConnection: TLSConnectionRole {
    let link: TLSSessionLink
    /// The GnuTLS session; nil once released.
    private(set) var handle: gnutls_session_t?
    private var credentials: gnutls_certificate_credentials_t?
    /// The certificates sent with a client identity (GnuTLS borrows them until the session ends).
    private var clientCertificates: GnuTLSPCertList?
    /// The identity whose key GnuTLS borrows for this session (keeps the `gnutls_privkey_t` alive).
    private var borrowedIdentity: ClientIdentity?
    /// The extension_data of the server's `signed_certificate_timestamp` extension, as received;
    /// nil when none arrived (or the client did not ask).
    private var signedCertificateTimestampList: [UInt8]?

    /// A client (SNI, ALPN, no resumption, the verify and retrieve functions) or a server (its
    /// identity, stapling, a certificate request when it asks for one).
    init(link: TLSSessionLink) throws {
        self.link = link
        _ = GnuTLSLibrary.initialized
        var made: gnutls_certificate_credentials_t?
        let allocated = gnutls_certificate_allocate_credentials(&made)
        guard allocated >= 0, let made else { throw setupError("gnutls_certificate_allocate_credentials", allocated) }
        credentials = made
        if link.side == .client {
            gnutls_certificate_set_retrieve_function2(credentials) { session, names, nameCount, _, _, certificates, count, key in
                GnuTLSConnection.retrieveClientCertificate(session, names, nameCount, certificates, count, key)
            }
        }
        if let identity = link.serverIdentity {
            try setServerIdentity(identity, key: try link.serverKey(as: GnuTLSPrivateKey.self))
        }
        if link.stapledOCSPResponse != nil {
            gnutls_certificate_set_ocsp_status_request_function(credentials, { session, _, response in
                GnuTLSConnection.stapleCallback(session, response)
            }, nil)
        }
        // The anchors' subjects go into the CertificateRequest as the acceptable CA names. The
        // trust list is used for nothing else: GnuTLS is never asked to verify with it.
        for anchor in link.acceptableClientCAs {
            let status = GnuTLSLibrary.withDatum(anchor.derEncoded) {
                gnutls_certificate_set_x509_trust_mem(credentials, &$0, GNUTLS_X509_FMT_DER)
            }
            guard status >= 0 else { throw setupError("gnutls_certificate_set_x509_trust_mem", status) }
        }
        // GNUTLS_NO_TICKETS: no session ticket is asked for, used or issued; with no session data
        // set, a client never offers resumption, so every handshake reaches the trust decision.
        try makeSession(flags: UInt32(link.side == .client ? GNUTLS_CLIENT : GNUTLS_SERVER) | UInt32(GNUTLS_NO_TICKETS))
        try setApplicationProtocols()
        if let name = link.serverNameIndication {
            let status = name.withCString { gnutls_server_name_set(handle, GNUTLS_NAME_DNS, $0, strlen($0)) }
            guard status >= 0 else { throw setupError("gnutls_server_name_set(\(name))", status) }
        }
        if link.asksForSignedCertificateTimestamps {
            let flags = UInt32(GNUTLS_EXT_FLAG_CLIENT_HELLO.rawValue | GNUTLS_EXT_FLAG_TLS12_SERVER_HELLO.rawValue | GNUTLS_EXT_FLAG_TLS.rawValue)
            let status = gnutls_session_ext_register(handle, "signed_certificate_timestamp", Self.signedCertificateTimestampType, GNUTLS_EXT_TLS,
                                                     { session, data, length in GnuTLSConnection.keepSCTs(session, data, length) },
                                                     { _, _ in GNUTLS_E_INT_RET_0 }, nil, nil, nil, flags)
            guard status >= 0 else { throw setupError("gnutls_session_ext_register(signed_certificate_timestamp)", status) }
        }
        if link.asksForStapledOCSPResponse {
            let status = gnutls_ocsp_status_request_enable_client(handle, nil, 0, nil)
            guard status >= 0 else { throw setupError("gnutls_ocsp_status_request_enable_client", status) }
        }
        if link.side == .server {
            // REQUEST even for .required: an absent certificate then reaches the verify function,
            // and the link decides.
            gnutls_certificate_server_set_request(handle, link.clientAuthentication == .none ? GNUTLS_CERT_IGNORE : GNUTLS_CERT_REQUEST)
        }
        if link.side == .client || link.clientAuthentication != .none {
            gnutls_session_set_verify_function(handle) { GnuTLSConnection.verifyPeerCallback($0) }
        }
    }

    deinit { release() }

    private func makeSession(flags: UInt32) throws {
        var made: gnutls_session_t?
        let status = gnutls_init(&made, flags)
        guard status >= 0, let made else { throw setupError("gnutls_init", status) }
        handle = made
        gnutls_session_set_ptr(made, Unmanaged.passUnretained(self).toOpaque())

        let priority = Self.priorityString(link.versions)
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
    static func priorityString(_ versions: ClosedRange<TLSVersion>) -> String {
        let enabled = TLSVersion.allCases.filter(versions.contains).reversed()
        let names = enabled.map { $0 == .tls13 ? "+VERS-TLS1.3" : "+VERS-TLS1.2" }
        return (["NORMAL", "-VERS-ALL"] + names).joined(separator: ":")
    }

    private func setApplicationProtocols() throws {
        guard !link.applicationProtocols.isEmpty else { return }
        // GnuTLS copies the names.
        let status: Int32 = Self.withDatums(link.applicationProtocols.names.map { Array($0.utf8) }) { datums in
            gnutls_alpn_set_protocols(handle, datums.baseAddress, UInt32(datums.count),
                                      link.side == .server ? UInt32(GNUTLS_ALPN_SERVER_PRECEDENCE.rawValue) : 0)
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

    private func setupError(_ call: String, _ status: Int32) -> TLSError {
        TLSError(.handshakeFailed, "GnuTLS: \(call) failed: \(GnuTLSLibrary.errorText(status))")
    }

    // MARK: TLSConnectionRole

    func stepHandshake() throws -> Bool {
        guard let session = handle else { throw TLSLibraryFailure(.other, "the GnuTLS session is closed") }
        let status = gnutls_handshake(session)
        if status >= 0 { return true }
        // A warning alert (e.g. unrecognized_name) or an interrupted call: go on.
        if link.channel.pendingError == nil && gnutls_error_is_fatal(status) == 0 { return false }
        throw failure(status, handshaking: true)
    }

    var negotiated: TLSNegotiatedParameters {
        var parameters = TLSNegotiatedParameters(version: nil, cipherSuite: nil, applicationProtocol: nil, isResumed: false)
        guard let session = handle else { return parameters }
        parameters.version = Self.version(session)
        if let name = gnutls_ciphersuite_get(session) { parameters.cipherSuite = String(cString: name) }
        var selected = gnutls_datum_t(data: nil, size: 0)
        if gnutls_alpn_get_selected_protocol(session, &selected) >= 0, let data = selected.data, selected.size > 0 {
            parameters.applicationProtocol = String(decoding: UnsafeBufferPointer(start: data, count: Int(selected.size)), as: UTF8.self)
        }
        parameters.isResumed = gnutls_session_is_resumed(session) != 0
        return parameters
    }

    var peerChainAfterHandshake: [[UInt8]] { handle.map(Self.peerChain) ?? [] }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let session = handle, let base = buffer.baseAddress else { return 0 }
        var retries = 0
        while true {
            let n = gnutls_record_recv(session, base, buffer.count)
            if n >= 0 { return n }  // 0: close_notify
            let status = Int32(n)
            if link.channel.pendingError != nil { throw TLSLibraryFailure(.transport, "GnuTLS: the transport failed") }
            switch status {
            case GNUTLS_E_PREMATURE_TERMINATION:
                return 0  // end of stream without close_notify
            case GNUTLS_E_REHANDSHAKE:
                // Renegotiation is not offered: refuse it politely and keep reading.
                _ = gnutls_alert_send(session, GNUTLS_AL_WARNING, GNUTLS_A_NO_RENEGOTIATION)
            case GNUTLS_E_AGAIN, GNUTLS_E_INTERRUPTED, GNUTLS_E_WARNING_ALERT_RECEIVED:
                break
            default:
                if link.channel.sawEndOfStream && status != GNUTLS_E_FATAL_ALERT_RECEIVED { return 0 }
                throw failure(status, handshaking: false)
            }
            retries += 1
            if retries > 64 { throw failure(status, handshaking: false) }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard let session = handle, let base = bytes.baseAddress else { return bytes.count }
        var retries = 0
        while true {
            let n = gnutls_record_send(session, base, bytes.count)
            if n > 0 { return n }
            if link.channel.pendingError != nil { throw TLSLibraryFailure(.transport, "GnuTLS: the transport failed") }
            let status = Int32(n)
            guard (status == GNUTLS_E_AGAIN || status == GNUTLS_E_INTERRUPTED) && retries < 64 else {
                throw failure(status, handshaking: false)
            }
            retries += 1
        }
    }

    func sendFatalAlert(_ alert: TLSAlert) {
        guard let handle else { return }
        _ = gnutls_alert_send(handle, GNUTLS_AL_FATAL, gnutls_alert_description_t(rawValue: UInt32(alert.rawValue)))
    }

    func sendCloseNotify() {
        // close_notify only; the transport is closed by the caller, so no reply is awaited.
        if let handle { _ = gnutls_bye(handle, GNUTLS_SHUT_WR) }
    }

    func release() {
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
        let owner = Unmanaged<GnuTLSConnection>.fromOpaque(pointer).takeUnretainedValue()
        let chain = peerChain(session)
        let accepted = owner.link.peerPresented(chain, protocolVersion: version(session),
                                                stapledOCSPResponses: owner.stapledOCSPResponses(session, chainLength: chain.count),
                                                signedCertificateTimestampList: owner.signedCertificateTimestampList)
        return accepted ? 0 : -1
    }

    /// The TLS extension type of `signed_certificate_timestamp` (RFC 6962 §3.3.1).
    static let signedCertificateTimestampType: Int32 = 18

    /// The server's `signed_certificate_timestamp` in its ServerHello: its bytes, unparsed (the
    /// client's own, sent empty, carries none). GnuTLS refuses a repeated extension itself.
    static func keepSCTs(_ session: gnutls_session_t?, _ data: UnsafePointer<UInt8>?, _ length: Int) -> Int32 {
        guard let session, let pointer = gnutls_session_get_ptr(session) else { return GNUTLS_E_INTERNAL_ERROR }
        let owner = Unmanaged<GnuTLSConnection>.fromOpaque(pointer).takeUnretainedValue()
        owner.signedCertificateTimestampList = length > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: length)) : []
        return 0
    }

    /// The peer's chain as `gnutls_certificate_get_peers` gives it, leaf first.
    private static func peerChain(_ session: gnutls_session_t) -> [[UInt8]] {
        guard gnutls_certificate_type_get2(session, GNUTLS_CTYPE_PEERS) == GNUTLS_CRT_X509 else { return [] }
        var count: UInt32 = 0
        guard let list = gnutls_certificate_get_peers(session, &count) else { return [] }
        return (0..<Int(count)).map { i in
            list[i].data.map { Array(UnsafeBufferPointer(start: $0, count: Int(list[i].size))) } ?? []
        }
    }

    /// The OCSP responses the server stapled, in the order of the certificates they came with
    /// (the leaf's first; a TLS 1.3 server may staple one per certificate, a TLS 1.2 server only
    /// the leaf's). Certificates without one are skipped. Empty when the link did not ask.
    private func stapledOCSPResponses(_ session: gnutls_session_t, chainLength: Int) -> [[UInt8]] {
        guard link.asksForStapledOCSPResponse else { return [] }
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
        let owner = Unmanaged<GnuTLSConnection>.fromOpaque(pointer).takeUnretainedValue()
        guard let bytes = owner.link.stapledOCSPResponse else { return GNUTLS_E_NO_CERTIFICATE_STATUS }
        guard let copy = CGnuTLS_malloc(bytes.count)?.assumingMemoryBound(to: UInt8.self) else { return GNUTLS_E_MEMORY_ERROR }
        copy.initialize(from: bytes, count: bytes.count)
        response.pointee = gnutls_datum_t(data: copy, size: UInt32(bytes.count))
        return 0
    }

    private static func version(_ session: gnutls_session_t) -> TLSVersion? {
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
    /// sent until the verify function has accepted the server. Non-zero ends the handshake.
    static func retrieveClientCertificate(
        _ session: gnutls_session_t?, _ names: UnsafePointer<gnutls_datum_t>?, _ nameCount: Int32,
        _ certificatesOut: UnsafeMutablePointer<UnsafeMutablePointer<gnutls_pcert_st>?>?,
        _ countOut: UnsafeMutablePointer<UInt32>?, _ keyOut: UnsafeMutablePointer<gnutls_privkey_t?>?
    ) -> Int32 {
        guard let session, let pointer = gnutls_session_get_ptr(session),
              let certificatesOut, let countOut, let keyOut else { return -1 }
        let owner = Unmanaged<GnuTLSConnection>.fromOpaque(pointer).takeUnretainedValue()
        let acceptable = (0..<Int(max(0, nameCount))).compactMap { i in
            names?[i].data.map { Array(UnsafeBufferPointer(start: $0, count: Int(names![i].size))) }
        }
        certificatesOut.pointee = nil
        countOut.pointee = 0
        keyOut.pointee = nil
        switch owner.link.certificateRequested(acceptableCANames: acceptable, protocolVersion: version(session), keyType: GnuTLSPrivateKey.self) {
        case .sendNone:
            return 0
        case .abort:
            return -1
        case .send(let identity, let key):
            do {
                let list = try GnuTLSPCertList(identity.certificates)
                owner.clientCertificates = list
                owner.borrowedIdentity = identity
                certificatesOut.pointee = list.pointer
                countOut.pointee = UInt32(list.count)
                keyOut.pointee = key.ref
                return 0
            } catch {
                owner.link.fail(error)
                return -1
            }
        }
    }

    // MARK: Errors

    /// What GnuTLS's status means, in the core's terms; during the handshake, GnuTLS's own alert
    /// for an error of its own is sent first.
    private func failure(_ status: Int32, handshaking: Bool) -> TLSLibraryFailure {
        let text = "GnuTLS: \(GnuTLSLibrary.errorText(status))"
        if link.alertToSend != nil { return TLSLibraryFailure(.stoppedByCore, text) }
        if status == GNUTLS_E_FATAL_ALERT_RECEIVED, let handle {
            let alert = gnutls_alert_get(handle)
            let name = gnutls_alert_get_name(alert).map { String(cString: $0) } ?? "alert \(alert.rawValue)"
            return TLSLibraryFailure(.alertReceived(TLSAlert(rawValue: UInt8(truncatingIfNeeded: alert.rawValue))), "GnuTLS: \"\(name)\"")
        }
        if link.channel.sawEndOfStream || status == GNUTLS_E_PREMATURE_TERMINATION || status == GNUTLS_E_INVALID_SESSION {
            return TLSLibraryFailure(.peerClosed, text)
        }
        if handshaking, let handle, link.channel.pendingError == nil {
            // GnuTLS's own alert for its own error; a peer that has gone already is no new failure.
            _ = gnutls_alert_send_appropriate(handle, status)
            link.channel.clearPendingError()
        }
        if status == GNUTLS_E_UNSUPPORTED_VERSION_PACKET || status == GNUTLS_E_UNEXPECTED_PACKET_LENGTH
            || status == GNUTLS_E_RECORD_OVERFLOW || status == GNUTLS_E_UNEXPECTED_PACKET {
            return TLSLibraryFailure(.notTLS, text)
        }
        return TLSLibraryFailure(.other, handshaking ? "GnuTLS handshake failed: \(GnuTLSLibrary.errorText(status))" : text)
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
