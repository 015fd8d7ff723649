internal import CMbedTLS
import TLSTrust

/// One TLS connection run by mbedTLS 2.28 (`mbedtls_ssl_context`), client or server, TLS 1.2 only:
/// the `TLSConnectionRole` the core's `TLSStateMachine` drives.
///
/// **Trust.** The library never judges the peer: a client runs with `MBEDTLS_SSL_VERIFY_NONE`, and
/// the handshake is driven one state at a time with `mbedtls_ssl_handshake_step`. As soon as the
/// state has moved past the peer's Certificate message (`MBEDTLS_SSL_SERVER_CERTIFICATE` on a
/// client, `MBEDTLS_SSL_CLIENT_CERTIFICATE` on a server), and before the next step can send or read
/// anything, the chain goes to the link; on a refusal the step stops and the core sends its alert,
/// so a refused server never receives a client certificate, a key exchange or application data.
///
/// The chain handed over is the Certificate message itself, still in mbedTLS's input buffer right
/// after the step that parsed it: every certificate exactly as presented, leaf first (mbedTLS's own
/// parsed list drops certificates with signature algorithms it does not know).
///
/// **Servers asking for client certificates.** mbedTLS 2.28 sends a CertificateRequest only when its
/// authmode is not NONE, so a server that asks runs with `MBEDTLS_SSL_VERIFY_OPTIONAL`: the library
/// then runs its own verifier on the client's chain, and its verdict is discarded (OPTIONAL makes it
/// non-fatal; `mbedtls_ssl_get_verify_result` is never read).
///
/// **Client certificates.** Chosen when the server has asked: after the CertificateRequest step,
/// with the CA names read from that message, the chosen identity goes into this session's own
/// `mbedtls_ssl_config` (`mbedtls_ssl_conf_own_cert`) before the client Certificate state writes it.
final class MbedTLSConnection: TLSConnectionRole {
    private let link: TLSSessionLink
    private let ssl: UnsafeMutablePointer<mbedtls_ssl_context>
    private let conf: UnsafeMutablePointer<mbedtls_ssl_config>
    private let entropy: UnsafeMutablePointer<mbedtls_entropy_context>
    private let drbg: UnsafeMutablePointer<mbedtls_ctr_drbg_context>
    // Owned C objects the configuration points into; freed after the context and the config.
    private var ownCertificates: MbedTLSCertificateList?
    private var ownKey: MbedTLSPrivateKey?
    private var clientCANames: MbedTLSCertificateList?
    private var alpn: MbedTLSProtocolList?
    private var released = false
    private var certificateRequestAnswered = false
    private var isResumed = false

    /// A client (SNI, ALPN, no resumption offered, no verification by the library) or a server
    /// (its identity; a certificate request naming the client anchors when it asks for one).
    init(link: TLSSessionLink) throws {
        self.link = link
        ssl = .allocate(capacity: 1)
        conf = .allocate(capacity: 1)
        entropy = .allocate(capacity: 1)
        drbg = .allocate(capacity: 1)
        mbedtls_ssl_init(ssl)
        mbedtls_ssl_config_init(conf)
        mbedtls_entropy_init(entropy)
        mbedtls_ctr_drbg_init(drbg)
        do {
            try configure(endpoint: link.side == .client ? MBEDTLS_SSL_IS_CLIENT : MBEDTLS_SSL_IS_SERVER)
            if let identity = link.serverIdentity {
                try useOwnCredentials(try MbedTLSCertificateList(identity: identity), try link.serverKey(as: MbedTLSPrivateKey.self))
            }
            if link.side == .client {
                // The library does not verify; the link does, from the handshake steps.
                mbedtls_ssl_conf_authmode(conf, MBEDTLS_SSL_VERIFY_NONE)
                // No resumption: no ticket is asked for, and no session is ever set on a context.
                mbedtls_ssl_conf_session_tickets(conf, MBEDTLS_SSL_SESSION_TICKETS_DISABLED)
            } else if link.clientAuthentication == .none {
                mbedtls_ssl_conf_authmode(conf, MBEDTLS_SSL_VERIFY_NONE)
            } else {
                // 2.28 sends a CertificateRequest only when the authmode is not NONE. OPTIONAL keeps the
                // library's own verdict non-fatal; it is never read. The CA list gives the names.
                mbedtls_ssl_conf_authmode(conf, MBEDTLS_SSL_VERIFY_OPTIONAL)
                let names = MbedTLSCertificateList(leniently: link.acceptableClientCAs.map(\.derEncoded))
                clientCANames = names
                if let head = names.head {
                    mbedtls_ssl_conf_ca_chain(conf, head, nil)
                    mbedtls_ssl_conf_cert_req_ca_list(conf, Int8(MBEDTLS_SSL_CERT_REQ_CA_LIST_ENABLED))
                }
            }
            // No session cache and no ticket keys are configured, so no client can resume.
            var status = mbedtls_ssl_setup(ssl, conf)
            guard status == 0 else { throw TLSError(.handshakeFailed, "mbedtls_ssl_setup: \(MbedTLSLibrary.errorText(status))") }
            mbedtls_ssl_set_bio(ssl, Unmanaged.passUnretained(link.channel).toOpaque(), MbedTLSTransportIO.send, MbedTLSTransportIO.receive, nil)
            if let name = link.serverNameIndication {
                status = mbedtls_ssl_set_hostname(ssl, name)
                guard status == 0 else {
                    throw TLSError(.invalidConfiguration, "mbedTLS refuses the server name \(name): \(MbedTLSLibrary.errorText(status))")
                }
            }
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    /// Defaults, the random generator, TLS 1.2 only, ALPN.
    private func configure(endpoint: Int32) throws {
        if let reason = mbedTLSLibrary.unusableReason { throw TLSError(.unsupported, reason) }
        var status = mbedtls_ssl_config_defaults(conf, endpoint, MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT)
        guard status == 0 else { throw TLSError(.handshakeFailed, "mbedtls_ssl_config_defaults: \(MbedTLSLibrary.errorText(status))") }
        let personalization = Array("TLSTrust mbedTLS session".utf8)
        status = mbedtls_ctr_drbg_seed(drbg, mbedtls_entropy_func, entropy, personalization, personalization.count)
        guard status == 0 else { throw TLSError(.handshakeFailed, "cannot seed mbedTLS's random generator: \(MbedTLSLibrary.errorText(status))") }
        mbedtls_ssl_conf_rng(conf, mbedtls_ctr_drbg_random, drbg)
        // TLS 1.2 is the only version this mbedTLS can negotiate (no MBEDTLS_SSL_PROTO_TLS1_3).
        mbedtls_ssl_conf_min_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3)
        mbedtls_ssl_conf_max_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3)
        mbedtls_ssl_conf_renegotiation(conf, MBEDTLS_SSL_RENEGOTIATION_DISABLED)
        if !link.applicationProtocols.isEmpty {
            let list = MbedTLSProtocolList(link.applicationProtocols.names)
            alpn = list
            status = mbedtls_ssl_conf_alpn_protocols(conf, list.pointer)
            guard status == 0 else { throw TLSError(.invalidConfiguration, "mbedTLS refuses the ALPN list \(link.applicationProtocols.names): \(MbedTLSLibrary.errorText(status))") }
        }
    }

    /// Puts a certificate list and key into this session's configuration (kept alive by the session).
    private func useOwnCredentials(_ chain: MbedTLSCertificateList, _ key: MbedTLSPrivateKey) throws {
        guard let head = chain.head else { throw TLSError(.invalidConfiguration, "the identity has no certificate") }
        let status = mbedtls_ssl_conf_own_cert(conf, head, key.pk)
        guard status == 0 else { throw TLSError(.invalidConfiguration, "mbedTLS refuses the identity: \(MbedTLSLibrary.errorText(status))") }
        ownCertificates = chain
        ownKey = key
    }

    // MARK: The handshake

    private static func state(_ value: mbedtls_ssl_states) -> Int32 { Int32(value.rawValue) }

    /// One `mbedtls_ssl_handshake_step`, then what it means: the peer's chain has been parsed
    /// (the link decides now), or the server's CertificateRequest has (the link chooses).
    func stepHandshake() throws -> Bool {
        let over = Self.state(MBEDTLS_SSL_HANDSHAKE_OVER)
        guard ssl.pointee.state != over else { return true }
        let before = ssl.pointee.state
        let status = mbedtls_ssl_handshake_step(ssl)
        if status != 0 {
            if link.side == .client, before == Self.state(MBEDTLS_SSL_SERVER_CERTIFICATE), presentedChainInMessage()?.isEmpty == true {
                // mbedTLS refuses an empty server Certificate message as malformed.
                throw TLSLibraryFailure(.noPeerCertificate, "mbedTLS: \(MbedTLSLibrary.errorText(status))")
            }
            throw alertBehindClosedConnection() ?? failure(status)
        }
        let after = ssl.pointee.state
        // A full handshake goes from ServerHello to the server's Certificate; an abbreviated one
        // straight to ChangeCipherSpec (on both sides). Clients here never offer a session.
        if before == Self.state(MBEDTLS_SSL_SERVER_HELLO) && after == Self.state(MBEDTLS_SSL_SERVER_CHANGE_CIPHER_SPEC) {
            isResumed = true
        }
        let peerCertificate = Self.state(link.side == .client ? MBEDTLS_SSL_SERVER_CERTIFICATE : MBEDTLS_SSL_CLIENT_CERTIFICATE)
        if link.peerDecision == nil && after > peerCertificate && (link.side == .client || link.clientAuthentication != .none) {
            guard link.peerPresented(presentedChain(), protocolVersion: .tls12) else {
                throw TLSLibraryFailure(.stoppedByCore, "mbedTLS stopped after the peer's Certificate message")
            }
        }
        if link.side == .client && !certificateRequestAnswered && before == Self.state(MBEDTLS_SSL_CERTIFICATE_REQUEST) && after > before {
            certificateRequestAnswered = true
            if ssl.pointee.client_auth != 0 { try answerCertificateRequest() }
        }
        return after == over
    }

    /// Puts the identity the link chose into the configuration before the client Certificate
    /// state writes it (`mbedtls_ssl_own_cert` reads `conf->key_cert` on a client).
    private func answerCertificateRequest() throws {
        switch link.certificateRequested(acceptableCANames: acceptableCANames(), protocolVersion: .tls12, keyType: MbedTLSPrivateKey.self) {
        case .send(let identity, let key):
            do {
                try useOwnCredentials(try MbedTLSCertificateList(identity: identity), key)
            } catch {
                link.fail(error)
                throw TLSLibraryFailure(.stoppedByCore, "mbedTLS cannot use the client identity")
            }
        case .sendNone:
            break  // mbedTLS sends an empty Certificate message
        case .abort:
            throw TLSLibraryFailure(.stoppedByCore, "the client certificate request was answered with abort")
        }
    }

    func sendFatalAlert(_ alert: TLSAlert) {
        _ = mbedtls_ssl_send_alert_message(ssl, UInt8(MBEDTLS_SSL_ALERT_LEVEL_FATAL), alert.rawValue)
    }

    var negotiated: TLSNegotiatedParameters {
        TLSNegotiatedParameters(version: TLSVersion(rawValue: Self.text(mbedtls_ssl_get_version(ssl)) ?? ""),
                                cipherSuite: Self.text(mbedtls_ssl_get_ciphersuite(ssl)),
                                applicationProtocol: Self.text(mbedtls_ssl_get_alpn_protocol(ssl)), isResumed: isResumed)
    }

    var peerChainAfterHandshake: [[UInt8]] { Self.chain(from: mbedtls_ssl_get_peer_cert(ssl)) }

    // MARK: Reading the peer's messages

    /// The handshake message mbedTLS has just parsed, header included, if it is of `type`.
    private func currentHandshakeMessage(type: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard ssl.pointee.in_msgtype == MBEDTLS_SSL_MSG_HANDSHAKE, let message = ssl.pointee.in_msg,
              ssl.pointee.in_hslen >= 4, ssl.pointee.in_hslen <= ssl.pointee.in_msglen,  // never a stale length
              message[0] == UInt8(type) else { return nil }
        return UnsafeBufferPointer(start: message, count: ssl.pointee.in_hslen)
    }

    /// The certificate_list of the Certificate message still in the input buffer, as presented.
    private func presentedChainInMessage() -> [[UInt8]]? {
        guard let message = currentHandshakeMessage(type: MBEDTLS_SSL_HS_CERTIFICATE) else { return nil }
        return TLSMessageReader.vectors(in: message, from: 4, outer: 3, inner: 3)
    }

    /// The peer's chain as presented: from the Certificate message, or else from mbedTLS's parsed
    /// list of the session being negotiated (which omits certificates it could not parse).
    private func presentedChain() -> [[UInt8]] {
        presentedChainInMessage() ?? Self.chain(from: ssl.pointee.session_negotiate?.pointee.peer_cert)
    }

    private static func chain(from first: UnsafePointer<mbedtls_x509_crt>?) -> [[UInt8]] {
        var chain: [[UInt8]] = []
        var next = first
        while let crt = next, crt.pointee.version != 0, let bytes = crt.pointee.raw.p {
            chain.append(Array(UnsafeBufferPointer(start: bytes, count: crt.pointee.raw.len)))
            next = UnsafePointer(crt.pointee.next)
        }
        return chain
    }

    /// The certificate_authorities of the CertificateRequest mbedTLS has just parsed (it checks the
    /// message's structure and ignores the names): DER Names, or nil if they cannot be read.
    private func acceptableCANames() -> [[UInt8]]? {
        guard let message = currentHandshakeMessage(type: MBEDTLS_SSL_HS_CERTIFICATE_REQUEST) else { return nil }
        var reader = TLSMessageReader(message, from: 4)
        guard reader.vector(lengthBytes: 1) != nil,        // certificate_types
              reader.vector(lengthBytes: 2) != nil,        // supported_signature_algorithms (TLS 1.2)
              let authorities = reader.vector(lengthBytes: 2), reader.isAtEnd else { return nil }
        return TLSMessageReader.vectors(in: authorities, lengthBytes: 2)
    }

    // MARK: Errors

    /// What mbedTLS's status means, in the core's terms.
    private func failure(_ status: Int32) -> TLSLibraryFailure {
        let text = "mbedTLS: \(MbedTLSLibrary.errorText(status))"
        switch status {
        case MBEDTLS_ERR_SSL_CONN_EOF, MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY:
            return TLSLibraryFailure(.peerClosed, text)
        case MBEDTLS_ERR_SSL_INVALID_RECORD:
            return TLSLibraryFailure(.notTLS, text)
        case MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE:
            guard ssl.pointee.in_msgtype == MBEDTLS_SSL_MSG_ALERT, let message = ssl.pointee.in_msg else { return TLSLibraryFailure(.other, text) }
            return TLSLibraryFailure(.alertReceived(TLSAlert(rawValue: message[1])), text)
        default:
            return TLSLibraryFailure(.other, text)
        }
    }

    /// When a send failed because the peer had closed the connection, the peer most likely said
    /// why first: a fatal alert (a client that refused this server's certificate sends
    /// bad_certificate while this server is still writing its flight). Reads that one record, for a
    /// short while, and reports the alert.
    private func alertBehindClosedConnection() -> TLSLibraryFailure? {
        let channel = link.channel
        guard channel.pendingError?.code == .connectionClosed, channel.pendingFromSend else { return nil }
        channel.clearPendingError()
        channel.deadlineLimit = .now + .milliseconds(250)
        defer { channel.deadlineLimit = nil }
        let status = mbedtls_ssl_read_record(ssl, 0)
        guard status == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE else { return TLSLibraryFailure(.peerClosed, "the peer closed the connection") }
        return failure(status)
    }

    // MARK: Data

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        while true {
            let n = mbedtls_ssl_read(ssl, base.assumingMemoryBound(to: UInt8.self), buffer.count)
            if n > 0 { return Int(n) }
            switch n {
            case 0, MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY, MBEDTLS_ERR_SSL_CONN_EOF:
                if link.channel.pendingError == nil { return 0 }
                throw TLSLibraryFailure(.transport, "mbedTLS: the transport failed")
            case MBEDTLS_ERR_SSL_WANT_READ, MBEDTLS_ERR_SSL_WANT_WRITE:
                if link.channel.pendingError != nil { throw TLSLibraryFailure(.transport, "mbedTLS: the transport failed") }
                continue  // a record that carried no data (a refused renegotiation, say)
            default:
                throw failure(n)
            }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        while true {
            let n = mbedtls_ssl_write(ssl, base.assumingMemoryBound(to: UInt8.self), bytes.count)
            if n > 0 { return Int(n) }
            if (n == MBEDTLS_ERR_SSL_WANT_READ || n == MBEDTLS_ERR_SSL_WANT_WRITE) && link.channel.pendingError == nil { continue }
            throw failure(n)
        }
    }

    func sendCloseNotify() {
        _ = mbedtls_ssl_close_notify(ssl)  // best effort, bounded by the context's deadline
    }

    /// Frees every mbedTLS object; idempotent. The context before its configuration, the
    /// configuration before the certificates and keys it points to.
    func release() {
        guard !released else { return }
        released = true
        mbedtls_ssl_free(ssl)
        mbedtls_ssl_config_free(conf)
        mbedtls_ctr_drbg_free(drbg)
        mbedtls_entropy_free(entropy)
        ssl.deallocate()
        conf.deallocate()
        drbg.deallocate()
        entropy.deallocate()
        ownCertificates = nil
        ownKey = nil
        clientCANames = nil
        alpn = nil
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

/// A list of certificates parsed by mbedTLS into one `mbedtls_x509_crt` chain, owned here.
final class MbedTLSCertificateList {
    private(set) var head: UnsafeMutablePointer<mbedtls_x509_crt>?

    /// The identity's leaf and chain, in order, for `mbedtls_ssl_conf_own_cert`.
    convenience init(identity: ClientIdentity) throws {
        try self.init(identity.certificates.map(\.derEncoded), lenient: false)
    }

    /// Certificates whose only use is their names: those mbedTLS cannot parse are left out.
    convenience init(leniently ders: [[UInt8]]) {
        // Never throws when lenient.
        try! self.init(ders, lenient: true)
    }

    private init(_ ders: [[UInt8]], lenient: Bool) throws {
        guard !ders.isEmpty else { return }
        let list = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(list)
        head = list
        for (index, der) in ders.enumerated() {
            let status = MbedTLSParsing.acceptingUnknownExtensions.parse(der, appendingTo: list)
            if status != 0 && !lenient {
                throw TLSError(.invalidConfiguration, "mbedTLS cannot parse certificate \(index) of the identity: \(MbedTLSLibrary.errorText(status))")
            }
        }
        if list.pointee.version == 0 {  // nothing parsed
            mbedtls_x509_crt_free(list)
            list.deallocate()
            head = nil
        }
    }

    deinit {
        if let head {
            mbedtls_x509_crt_free(head)
            head.deallocate()
        }
    }
}

/// A NULL-terminated array of C strings for `mbedtls_ssl_conf_alpn_protocols`, owned here.
final class MbedTLSProtocolList {
    let pointer: UnsafeMutablePointer<UnsafePointer<CChar>?>
    private let strings: [UnsafeMutablePointer<CChar>]

    /// `protocols` as checked by `TLSApplicationProtocols` (no NUL, so each is one C string).
    init(_ protocols: [String]) {
        strings = protocols.map { strdup($0)! }
        pointer = .allocate(capacity: strings.count + 1)
        for (i, s) in strings.enumerated() { pointer[i] = UnsafePointer(s) }
        pointer[strings.count] = nil
    }

    deinit {
        strings.forEach { free($0) }
        pointer.deallocate()
    }
}
