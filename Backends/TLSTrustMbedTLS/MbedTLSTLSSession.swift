internal import CMbedTLS
import TLSTrust

/// One TLS connection run by mbedTLS 2.28 (`mbedtls_ssl_context`), client or server, TLS 1.2 only.
///
/// **Trust.** The library never judges the peer: a client runs with `MBEDTLS_SSL_VERIFY_NONE`, and
/// the handshake is driven one state at a time with `mbedtls_ssl_handshake_step`. As soon as the
/// state has moved past the peer's Certificate message (`MBEDTLS_SSL_SERVER_CERTIFICATE` on a
/// client, `MBEDTLS_SSL_CLIENT_CERTIFICATE` on a server), and before the next step can send or read
/// anything, the session hands the presented chain to ``TLSHandshakeContext/verifyPeer(presentedChain:protocolVersion:)``.
/// On a refusal it sends a fatal `bad_certificate` alert and stops stepping, so a refused server
/// never receives a client certificate, a key exchange or application data.
///
/// The chain handed over is the Certificate message itself, still in mbedTLS's input buffer right
/// after the step that parsed it: every certificate exactly as presented, leaf first (mbedTLS's own
/// parsed list drops certificates with signature algorithms it does not know).
///
/// **Servers asking for client certificates.** mbedTLS 2.28 sends a CertificateRequest only when its
/// authmode is not NONE, so a server that asks runs with `MBEDTLS_SSL_VERIFY_OPTIONAL`: the library
/// then runs its own verifier on the client's chain, and its verdict is discarded (OPTIONAL makes it
/// non-fatal; `mbedtls_ssl_get_verify_result` is never read). The decision is `verifyPeer`.
///
/// **Client certificates.** Chosen when the server has asked: after the CertificateRequest step,
/// with the CA names read from that message, the chosen identity goes into this session's own
/// `mbedtls_ssl_config` (`mbedtls_ssl_conf_own_cert`) before the client Certificate state writes it.
final class MbedTLSTLSSession: TLSSession {
    private enum Role {
        case client
        case server(TLSClientAuthentication)
    }

    private enum Phase { case ready, established, failed, released }

    private let role: Role
    private let context: TLSHandshakeContext
    private let io: MbedTLSTransportIO
    private let ssl: UnsafeMutablePointer<mbedtls_ssl_context>
    private let conf: UnsafeMutablePointer<mbedtls_ssl_config>
    private let entropy: UnsafeMutablePointer<mbedtls_entropy_context>
    private let drbg: UnsafeMutablePointer<mbedtls_ctr_drbg_context>
    // Owned C objects the configuration points into; freed after the context and the config.
    private var ownCertificates: MbedTLSCertificateList?
    private var ownKey: MbedTLSPrivateKey?
    private var clientCANames: MbedTLSCertificateList?
    private var alpn: MbedTLSProtocolList?
    private var phase = Phase.ready
    /// Whether this client was asked for a certificate (to name a later alert as a refusal of it).
    private var certificateRequested = false

    private(set) var negotiatedVersion: TLSVersion?
    private(set) var cipherSuite: String?
    private(set) var negotiatedApplicationProtocol: String?
    private(set) var isResumed = false

    private init(role: Role, context: TLSHandshakeContext, transport: any TLSTransport) {
        self.role = role
        self.context = context
        io = MbedTLSTransportIO(transport: transport, context: context)
        ssl = .allocate(capacity: 1)
        conf = .allocate(capacity: 1)
        entropy = .allocate(capacity: 1)
        drbg = .allocate(capacity: 1)
        mbedtls_ssl_init(ssl)
        mbedtls_ssl_config_init(conf)
        mbedtls_entropy_init(entropy)
        mbedtls_ctr_drbg_init(drbg)
    }

    deinit { release() }

    // MARK: Making sessions

    /// A client session: SNI for a DNS name, ALPN, TLS 1.2, no resumption offered, no verification
    /// by the library.
    static func client(configuration: TLSClientConfiguration, context: TLSHandshakeContext,
                       transport: any TLSTransport) throws -> MbedTLSTLSSession {
        if let identity = configuration.identity { _ = try key(of: identity) }  // refuse another backend's identity now
        let session = MbedTLSTLSSession(role: .client, context: context, transport: transport)
        do {
            try session.configure(endpoint: MBEDTLS_SSL_IS_CLIENT, applicationProtocols: configuration.applicationProtocols)
            // The library does not verify; `verifyPeer` does, from the handshake loop.
            mbedtls_ssl_conf_authmode(session.conf, MBEDTLS_SSL_VERIFY_NONE)
            // No resumption: no ticket is asked for, and no session is ever set on a context.
            mbedtls_ssl_conf_session_tickets(session.conf, MBEDTLS_SSL_SESSION_TICKETS_DISABLED)
            try session.setUp()
            if let name = ServerNameIndication.hostName(configured: configuration.serverName, host: context.host) {
                let status = mbedtls_ssl_set_hostname(session.ssl, name)
                guard status == 0 else {
                    throw TLSError(.invalidConfiguration, "mbedTLS refuses the server name \(name): \(MbedTLSLibrary.errorText(status))")
                }
            }
            return session
        } catch {
            session.release()
            throw error
        }
    }

    /// A server session presenting `configuration.identity`, asking for client certificates when
    /// configured to, naming the client anchors as acceptable CAs.
    static func server(configuration: TLSServerConfiguration, context: TLSHandshakeContext,
                       transport: any TLSTransport) throws -> MbedTLSTLSSession {
        let key = try key(of: configuration.identity)
        let chain = try MbedTLSCertificateList(identity: configuration.identity)
        let session = MbedTLSTLSSession(role: .server(configuration.clientAuthentication), context: context, transport: transport)
        do {
            try session.configure(endpoint: MBEDTLS_SSL_IS_SERVER, applicationProtocols: configuration.applicationProtocols)
            try session.useOwnCredentials(chain, key)
            if configuration.clientAuthentication == .none {
                mbedtls_ssl_conf_authmode(session.conf, MBEDTLS_SSL_VERIFY_NONE)
            } else {
                // 2.28 sends a CertificateRequest only when the authmode is not NONE. OPTIONAL keeps the
                // library's own verdict non-fatal; it is never read. The CA list gives the names.
                mbedtls_ssl_conf_authmode(session.conf, MBEDTLS_SSL_VERIFY_OPTIONAL)
                let names = MbedTLSCertificateList(leniently: configuration.clientAnchors.certificates.map(\.derEncoded))
                session.clientCANames = names
                if let head = names.head {
                    mbedtls_ssl_conf_ca_chain(session.conf, head, nil)
                    mbedtls_ssl_conf_cert_req_ca_list(session.conf, Int8(MBEDTLS_SSL_CERT_REQ_CA_LIST_ENABLED))
                }
            }
            // No session cache and no ticket keys are configured, so no client can resume.
            try session.setUp()
            return session
        } catch {
            session.release()
            throw error
        }
    }

    private static func key(of identity: ClientIdentity) throws -> MbedTLSPrivateKey {
        guard let key = identity.privateKey as? MbedTLSPrivateKey else {
            throw TLSError(.invalidConfiguration, "the identity for \(identity.certificate.subject) holds a private key of another backend (\(type(of: identity.privateKey))); import it with MbedTLSTrustBackend's importPKCS12 or importIdentity")
        }
        return key
    }

    /// Defaults, the random generator, TLS 1.2 only, ALPN.
    private func configure(endpoint: Int32, applicationProtocols: [String]) throws {
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
        if !applicationProtocols.isEmpty {
            let list = try MbedTLSProtocolList(applicationProtocols)
            alpn = list
            status = mbedtls_ssl_conf_alpn_protocols(conf, list.pointer)
            guard status == 0 else { throw TLSError(.invalidConfiguration, "mbedTLS refuses the ALPN list \(applicationProtocols): \(MbedTLSLibrary.errorText(status))") }
        }
    }

    /// Binds the context to the configuration and the transport.
    private func setUp() throws {
        let status = mbedtls_ssl_setup(ssl, conf)
        guard status == 0 else { throw TLSError(.handshakeFailed, "mbedtls_ssl_setup: \(MbedTLSLibrary.errorText(status))") }
        mbedtls_ssl_set_bio(ssl, Unmanaged.passUnretained(io).toOpaque(), MbedTLSTransportIO.send, MbedTLSTransportIO.receive, nil)
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

    func handshake() throws {
        guard phase == .ready else { throw TLSError(.invalidConfiguration, "the handshake of this session has already run") }
        do {
            try runHandshake()
            phase = .established
        } catch {
            phase = .failed
            throw error
        }
        negotiatedVersion = TLSVersion(rawValue: Self.text(mbedtls_ssl_get_version(ssl)) ?? "")
        cipherSuite = Self.text(mbedtls_ssl_get_ciphersuite(ssl))
        negotiatedApplicationProtocol = Self.text(mbedtls_ssl_get_alpn_protocol(ssl))
    }

    private static func state(_ value: mbedtls_ssl_states) -> Int32 { Int32(value.rawValue) }

    private func runHandshake() throws {
        let over = Self.state(MBEDTLS_SSL_HANDSHAKE_OVER)
        var peerDecided = false
        var certificateRequestAnswered = false
        while ssl.pointee.state != over {
            let before = ssl.pointee.state
            let status = mbedtls_ssl_handshake_step(ssl)
            if status != 0 {
                if case .client = role, !peerDecided, before == Self.state(MBEDTLS_SSL_SERVER_CERTIFICATE),
                   let chain = presentedChainInMessage(), chain.isEmpty {
                    // mbedTLS refuses an empty server Certificate message as malformed; TLSTrust's
                    // reason is that the server presented no certificate.
                    _ = context.verifyPeer(presentedChain: [], protocolVersion: .tls12)
                }
                throw alertBehindClosedConnection() ?? error(for: status, handshaking: true)
            }
            let after = ssl.pointee.state
            // A full handshake goes from ServerHello to the server's Certificate; an abbreviated one
            // straight to ChangeCipherSpec (on both sides). Clients here never offer a session.
            if before == Self.state(MBEDTLS_SSL_SERVER_HELLO) && after == Self.state(MBEDTLS_SSL_SERVER_CHANGE_CIPHER_SPEC) {
                isResumed = true
            }
            switch role {
            case .client:
                if !peerDecided && after > Self.state(MBEDTLS_SSL_SERVER_CERTIFICATE) {
                    peerDecided = true
                    try decidePeer(presentedChain())
                }
                if !certificateRequestAnswered && before == Self.state(MBEDTLS_SSL_CERTIFICATE_REQUEST) && after > before {
                    certificateRequestAnswered = true
                    if ssl.pointee.client_auth != 0 { try answerCertificateRequest() }
                }
            case .server(let clientAuthentication):
                if clientAuthentication != .none && !peerDecided && after > Self.state(MBEDTLS_SSL_CLIENT_CERTIFICATE) {
                    peerDecided = true
                    let chain = presentedChain()
                    // A client that sends no certificate to an optional request is let in unjudged.
                    if !(chain.isEmpty && clientAuthentication == .optional) {
                        try decidePeer(chain)
                    }
                }
            }
        }
    }

    /// Runs the trust decision; on a refusal, sends a fatal bad_certificate alert and throws.
    private func decidePeer(_ chain: [[UInt8]]) throws {
        if context.verifyPeer(presentedChain: chain, protocolVersion: .tls12) { return }
        sendFatalAlert(MBEDTLS_SSL_ALERT_MSG_BAD_CERT)
        throw context.failure ?? TLSError(.peerTrustRefused, "the \(peerName)'s certificate chain was refused")
    }

    private var peerName: String {
        if case .client = role { return "server" }
        return "client"
    }

    /// Asks the core which identity to send, and puts it into the configuration before the client
    /// Certificate state writes it (`mbedtls_ssl_own_cert` reads `conf->key_cert` on a client).
    private func answerCertificateRequest() throws {
        certificateRequested = true
        switch context.clientIdentity(acceptableCANames: acceptableCANames(), protocolVersion: .tls12) {
        case .send(let identity):
            do {
                let key = try Self.key(of: identity)
                try useOwnCredentials(try MbedTLSCertificateList(identity: identity), key)
            } catch let error as TLSError {
                context.recordFailure(error)
                sendFatalAlert(MBEDTLS_SSL_ALERT_MSG_INTERNAL_ERROR)
                throw error
            }
        case .sendNone:
            break  // mbedTLS sends an empty Certificate message
        case .abort:
            sendFatalAlert(MBEDTLS_SSL_ALERT_MSG_HANDSHAKE_FAILURE)
            throw context.failure ?? TLSError(.cancelled, "the client certificate request was answered with abort")
        }
    }

    private func sendFatalAlert(_ description: Int32) {
        _ = mbedtls_ssl_send_alert_message(ssl, UInt8(MBEDTLS_SSL_ALERT_LEVEL_FATAL), UInt8(description))
    }

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
        var reader = TLSMessageReader(message, from: 4)
        guard let list = reader.vector(lengthBytes: 3), reader.isAtEnd else { return nil }
        var entries = TLSMessageReader(list)
        var chain: [[UInt8]] = []
        while !entries.isAtEnd {
            guard let der = entries.vector(lengthBytes: 3) else { return nil }
            chain.append(der)
        }
        return chain
    }

    /// The peer's chain as presented: from the Certificate message, or else from mbedTLS's parsed
    /// list of the session being negotiated (which omits certificates it could not parse).
    private func presentedChain() -> [[UInt8]] {
        if let chain = presentedChainInMessage() { return chain }
        var chain: [[UInt8]] = []
        var next = ssl.pointee.session_negotiate?.pointee.peer_cert
        while let crt = next, crt.pointee.version != 0, let bytes = crt.pointee.raw.p {
            chain.append(Array(UnsafeBufferPointer(start: bytes, count: crt.pointee.raw.len)))
            next = crt.pointee.next
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
        var names = TLSMessageReader(authorities)
        var result: [[UInt8]] = []
        while !names.isAtEnd {
            guard let name = names.vector(lengthBytes: 2) else { return nil }
            result.append(name)
        }
        return result
    }

    // MARK: Errors

    private func error(for status: Int32, handshaking: Bool) -> TLSError {
        if let pending = io.pending { return pending }
        let text = MbedTLSLibrary.errorText(status)
        let when = handshaking ? " during the handshake" : ""
        switch status {
        case MBEDTLS_ERR_SSL_CONN_EOF:
            return TLSError(.connectionClosed, "the \(peerName) closed the connection\(when)")
        case MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY:
            return TLSError(.connectionClosed, "the \(peerName) sent close_notify\(when)")
        case MBEDTLS_ERR_SSL_INVALID_RECORD:
            return TLSError(.protocolError, "the \(peerName) sent bytes that are not TLS records (mbedTLS: \(text))")
        case MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE:
            var alert = -1
            if ssl.pointee.in_msgtype == MBEDTLS_SSL_MSG_ALERT, let message = ssl.pointee.in_msg { alert = Int(message[1]) }
            let described = "the \(peerName) sent a fatal alert\(when): \(Self.alertName(alert)) (\(alert))"
            if case .client = role, certificateRequested, Self.certificateAlerts.contains(alert) {
                return TLSError(.clientCertificateRejected, "\(described), after asking for a client certificate")
            }
            return TLSError(.handshakeFailed, described)
        default:
            return TLSError(.handshakeFailed, "mbedTLS\(when): \(text)")
        }
    }

    /// When a send failed because the peer had closed the connection, the peer most likely said
    /// why first: a fatal alert (a client that refused this server's certificate sends
    /// bad_certificate while this server is still writing its flight). Reads that one record, for a
    /// short while, and reports the alert.
    private func alertBehindClosedConnection() -> TLSError? {
        guard let pending = io.pending, pending.code == .connectionClosed, io.pendingFromSend else { return nil }
        io.clearPending()
        io.deadlineLimit = .now + .milliseconds(250)
        defer { io.deadlineLimit = nil }
        let status = mbedtls_ssl_read_record(ssl, 0)
        guard status == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE else { return pending }
        return error(for: status, handshaking: true)
    }

    /// Alerts a server sends when it refuses a client certificate (or its absence).
    private static let certificateAlerts: Set<Int> = [40, 42, 43, 44, 45, 46, 48, 49, 116]

    private static func alertName(_ code: Int) -> String {
        switch code {
        case 10: "unexpected_message"
        case 20: "bad_record_mac"
        case 40: "handshake_failure"
        case 42: "bad_certificate"
        case 43: "unsupported_certificate"
        case 44: "certificate_revoked"
        case 45: "certificate_expired"
        case 46: "certificate_unknown"
        case 47: "illegal_parameter"
        case 48: "unknown_ca"
        case 49: "access_denied"
        case 50: "decode_error"
        case 51: "decrypt_error"
        case 70: "protocol_version"
        case 71: "insufficient_security"
        case 80: "internal_error"
        case 90: "user_canceled"
        case 109: "missing_extension"
        case 112: "unrecognized_name"
        case 116: "certificate_required"
        case 120: "no_application_protocol"
        default: "alert"
        }
    }

    // MARK: Data

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard phase == .established else {
            throw TLSError(.connectionClosed, phase == .released ? "the connection is closed" : "the handshake has not completed")
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        io.clearPending()
        while true {
            let n = mbedtls_ssl_read(ssl, base.assumingMemoryBound(to: UInt8.self), buffer.count)
            if n > 0 { return Int(n) }
            switch n {
            case 0, MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY, MBEDTLS_ERR_SSL_CONN_EOF:
                if io.pending == nil { return 0 }
                throw io.pending!
            case MBEDTLS_ERR_SSL_WANT_READ, MBEDTLS_ERR_SSL_WANT_WRITE:
                if let pending = io.pending { throw pending }
                continue  // a record that carried no data (a refused renegotiation, say)
            default:
                throw error(for: n, handshaking: false)
            }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard phase == .established else {
            throw TLSError(.connectionClosed, phase == .released ? "the connection is closed" : "the handshake has not completed")
        }
        guard let base = bytes.baseAddress else { return }
        io.clearPending()
        var offset = 0
        while offset < bytes.count {
            let n = mbedtls_ssl_write(ssl, base.assumingMemoryBound(to: UInt8.self) + offset, bytes.count - offset)
            if n > 0 { offset += Int(n); continue }
            if (n == MBEDTLS_ERR_SSL_WANT_READ || n == MBEDTLS_ERR_SSL_WANT_WRITE) && io.pending == nil { continue }
            throw error(for: n, handshaking: false)
        }
    }

    func shutdown() {
        if phase == .established {
            io.clearPending()
            _ = mbedtls_ssl_close_notify(ssl)  // best effort, bounded by the context's deadline
        }
        release()
    }

    /// Frees every mbedTLS object; idempotent. The context before its configuration, the
    /// configuration before the certificates and keys it points to.
    private func release() {
        guard phase != .released else { return }
        phase = .released
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

    init(_ protocols: [String]) throws {
        for name in protocols where name.utf8.isEmpty || name.utf8.count > 255 || name.utf8.contains(0) {
            throw TLSError(.invalidConfiguration, "the ALPN protocol \"\(name)\" must be 1 to 255 bytes without NUL")
        }
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

/// Reads length-prefixed vectors of a TLS handshake message, within its bounds.
struct TLSMessageReader {
    private let bytes: [UInt8]
    private var offset: Int

    init(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) {
        bytes = Array(buffer)
        offset = min(start, bytes.count)
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        offset = 0
    }

    var isAtEnd: Bool { offset == bytes.count }

    /// A vector with a `lengthBytes`-byte big-endian length; nil if it overruns the message.
    mutating func vector(lengthBytes: Int) -> [UInt8]? {
        guard bytes.count - offset >= lengthBytes else { return nil }
        var length = 0
        for i in 0..<lengthBytes { length = length << 8 | Int(bytes[offset + i]) }
        let start = offset + lengthBytes
        guard bytes.count - start >= length else { return nil }
        offset = start + length
        return Array(bytes[start..<offset])
    }
}
