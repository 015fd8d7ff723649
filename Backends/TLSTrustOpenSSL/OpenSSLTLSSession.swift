internal import COpenSSL
import TLSTrust
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One TLS connection over OpenSSL 3: an `SSL_CTX` and an `SSL` made for it, with a custom `BIO`
/// over the ``TLSTransport`` and the trust decisions in callbacks that ask the
/// ``TLSHandshakeContext``.
///
/// - Peer trust: `SSL_CTX_set_cert_verify_callback` replaces `X509_verify_cert` altogether; the
///   callback hands the chain the peer presented (`X509_STORE_CTX_get0_untrusted`, leaf first) to
///   `context.verifyPeer` and fails with `X509_V_ERR_CERT_REJECTED` on a refusal, which OpenSSL
///   turns into a fatal `bad_certificate` alert before it goes on with the handshake.
/// - Client certificates: `SSL_CTX_set_cert_cb` runs when the server's CertificateRequest is
///   answered; it asks `context.clientIdentity` with the names of `SSL_get0_peer_CA_list`.
/// - OCSP stapling: a client that asks (`asksForStapledOCSPResponse`) sends status_request
///   (`SSL_set_tlsext_status_type`) and installs a status callback. The stapled response must
///   reach the decision, and OpenSSL's order differs by version (seen with OpenSSL 3.0):
///   under TLS 1.3 the response rides in the leaf's certificate entry, so it is known when the
///   verify callback runs, and the decision is made there as always. Under TLS 1.2 the
///   CertificateStatus message follows Certificate, so the verify callback runs before it has
///   arrived: it holds the chain instead (`pendingChain`) and accepts provisionally, and the
///   decision is made by whichever runs first of the client-certificate callback (at
///   CertificateRequest, which follows CertificateStatus) and the status callback (at
///   ServerHelloDone). Both run before the client sends its second flight, and a refusal in
///   either ends the handshake with a fatal alert (`internal_error` from the certificate callback,
///   `bad_certificate_status_response` from the status callback), so nothing more is sent to
///   a refused server. Every path that could leave a decision pending fails closed.
/// - A server with ``TLSServerConfiguration/stapledOCSPResponse`` staples a copy of it from its
///   status callback whenever a client asks.
/// - No resumption: no session cache, no tickets, so every handshake is judged afresh.
final class OpenSSLTLSSession: TLSSession {
    private var ssl: OpaquePointer?
    private var sslContext: OpaquePointer?
    private let state: OpenSSLConnectionState
    private let role: TLSHandshakeContext.Role
    private let clientAuthentication: TLSClientAuthentication
    /// A fatal error happened: OpenSSL must not be asked for a close_notify any more.
    private var failed = false
    private var established = false

    private(set) var negotiatedVersion: TLSVersion?
    private(set) var cipherSuite: String?
    private(set) var negotiatedApplicationProtocol: String?
    private(set) var isResumed = false

    // MARK: Making sessions

    /// The client side: SNI and ALPN as configured, the server's chain judged by the context.
    init(client configuration: TLSClientConfiguration, host: String, versions: (TLSVersion, TLSVersion),
         context: TLSHandshakeContext, transport: any TLSTransport) throws {
        role = .client
        clientAuthentication = .none
        state = OpenSSLConnectionState(transport: transport, context: context, serverALPN: [])
        if let identity = configuration.identity { _ = try Self.key(of: identity, for: "the client configuration") }
        let alpn = try Self.wireFormat(configuration.applicationProtocols)

        let ctx = try Self.makeContext(versions: versions)
        sslContext = ctx
        // SSL_VERIFY_PEER only makes OpenSSL act on the verdict; the verdict is the callback's.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        SSL_CTX_set_cert_verify_callback(ctx, OpenSSLTLSCallbacks.verifyPeer, nil)
        SSL_CTX_set_cert_cb(ctx, OpenSSLTLSCallbacks.chooseClientCertificate, nil)
        if configuration.asksForStapledOCSPResponse {
            state.asksForStapledOCSPResponse = true
            _ = COpenSSL_SSL_CTX_set_tlsext_status_cb(ctx, OpenSSLTLSCallbacks.clientStatus)
        }

        let ssl = try makeSSL(ctx)
        SSL_set_connect_state(ssl)
        if configuration.asksForStapledOCSPResponse {
            guard COpenSSL_SSL_request_ocsp_stapling(ssl) == 1 else {
                throw TLSError(.handshakeFailed, "OpenSSL cannot request OCSP stapling: \(OpenSSLLibrary.drainErrors())")
            }
        }
        if let name = ServerNameIndication.hostName(configured: configuration.serverName, host: host) {
            guard COpenSSL_SSL_set_tlsext_host_name(ssl, name) == 1 else {
                throw TLSError(.invalidConfiguration, "OpenSSL refuses \(name) as a server name (SNI): \(OpenSSLLibrary.drainErrors())")
            }
        }
        if !alpn.isEmpty {
            // The one OpenSSL call that returns 0 on success.
            guard SSL_set_alpn_protos(ssl, alpn, UInt32(alpn.count)) == 0 else {
                throw TLSError(.invalidConfiguration, "OpenSSL refuses the ALPN list \(configuration.applicationProtocols): \(OpenSSLLibrary.drainErrors())")
            }
        }
    }

    /// The server side: presents the configured identity; asks for a client certificate when
    /// configured, naming the client anchors as acceptable CAs.
    init(server configuration: TLSServerConfiguration, versions: (TLSVersion, TLSVersion),
         context: TLSHandshakeContext, transport: any TLSTransport) throws {
        role = .server
        clientAuthentication = configuration.clientAuthentication
        state = OpenSSLConnectionState(transport: transport, context: context,
                                       serverALPN: try Self.wireFormat(configuration.applicationProtocols))
        let key = try Self.key(of: configuration.identity, for: "the server configuration")

        let ctx = try Self.makeContext(versions: versions)
        sslContext = ctx
        try Self.withX509s(configuration.identity) { leaf, chain in
            guard SSL_CTX_use_cert_and_key(ctx, leaf, key.ref, chain, 1) == 1 else {
                throw TLSError(.invalidConfiguration, "OpenSSL refuses the server identity \(configuration.identity.certificate.subject): \(OpenSSLLibrary.drainErrors())")
            }
        }
        if clientAuthentication != .none {
            var mode = SSL_VERIFY_PEER
            if clientAuthentication == .required { mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT }
            SSL_CTX_set_verify(ctx, mode, nil)
            SSL_CTX_set_cert_verify_callback(ctx, OpenSSLTLSCallbacks.verifyPeer, nil)
            for anchor in configuration.clientAnchors.certificates {
                let x = try OpenSSLCertificate(derEncoded: anchor.derEncoded)
                guard SSL_CTX_add_client_CA(ctx, x.ref) == 1 else {
                    throw TLSError(.invalidConfiguration, "OpenSSL cannot name \(anchor.subject) as an acceptable CA: \(OpenSSLLibrary.drainErrors())")
                }
            }
        }
        if !state.serverALPN.isEmpty {
            SSL_CTX_set_alpn_select_cb(ctx, OpenSSLTLSCallbacks.selectApplicationProtocol, nil)
        }
        if let response = configuration.stapledOCSPResponse {
            guard !response.isEmpty else {
                throw TLSError(.invalidConfiguration, "the OCSP response to staple is empty")
            }
            state.stapledOCSPResponse = response
            _ = COpenSSL_SSL_CTX_set_tlsext_status_cb(ctx, OpenSSLTLSCallbacks.serverStatus)
        }
        let ssl = try makeSSL(ctx)
        SSL_set_accept_state(ssl)
    }

    deinit { release() }

    /// An `SSL_CTX` for one connection: the version range, no session cache, no tickets, no
    /// renegotiation, and end of stream read as a close (so that `read` returns 0).
    private static func makeContext(versions: (TLSVersion, TLSVersion)) throws -> OpaquePointer {
        _ = OpenSSLLibrary.initialized
        guard let ctx = SSL_CTX_new(TLS_method()) else {
            throw TLSError(.handshakeFailed, "OpenSSL cannot make an SSL_CTX: \(OpenSSLLibrary.drainErrors())")
        }
        guard COpenSSL_SSL_CTX_set_min_proto_version(ctx, wireVersion(versions.0)) == 1,
              COpenSSL_SSL_CTX_set_max_proto_version(ctx, wireVersion(versions.1)) == 1 else {
            SSL_CTX_free(ctx)
            throw TLSError(.unsupported, "OpenSSL refuses the version range \(versions.0)…\(versions.1): \(OpenSSLLibrary.drainErrors())")
        }
        _ = SSL_CTX_set_options(ctx, COpenSSL_SSL_OP_NO_TICKET() | COpenSSL_SSL_OP_IGNORE_UNEXPECTED_EOF() | COpenSSL_SSL_OP_NO_RENEGOTIATION())
        _ = COpenSSL_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_OFF))
        _ = SSL_CTX_set_num_tickets(ctx, 0)
        return ctx
    }

    private func makeSSL(_ ctx: OpaquePointer) throws -> OpaquePointer {
        guard let ssl = SSL_new(ctx) else {
            throw TLSError(.handshakeFailed, "OpenSSL cannot make an SSL: \(OpenSSLLibrary.drainErrors())")
        }
        self.ssl = ssl
        _ = SSL_set_ex_data(ssl, 0, state.opaque)
        let bio = try OpenSSLTransportIO.makeBIO(for: state)
        SSL_set_bio(ssl, bio, bio)  // the SSL owns the BIO from here
        return ssl
    }

    /// Frees the SSL (and with it the BIO) and the SSL_CTX, without I/O.
    private func release() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if let sslContext { SSL_CTX_free(sslContext) }
        sslContext = nil
    }

    // MARK: TLSSession

    func handshake() throws {
        guard let ssl else { throw TLSError(.connectionClosed, "the session is closed") }
        state.resetTransportError()
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            failed = true
            throw handshakeError(result)
        }
        ERR_clear_error()
        if role == .client && state.peerVerified != true {
            // Fail closed: a handshake that ended without the trust callback (no certificate
            // exchanged) still gets the trust decision, before any data moves.
            if state.peerVerified == nil {
                let chain = state.pendingChain ?? peerChainAfterHandshake(ssl)
                state.pendingChain = nil
                state.peerVerified = state.context.verifyPeer(presentedChain: chain, protocolVersion: Self.version(of: ssl),
                                                              stapledOCSPResponses: Self.stapledOCSPResponses(ssl, state))
            }
            if state.peerVerified != true {
                failed = true
                throw state.context.failure ?? TLSError(.peerTrustRefused, "the server's chain was not accepted")
            }
        }
        established = true
        negotiatedVersion = Self.version(of: ssl)
        isResumed = SSL_session_reused(ssl) == 1
        if let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) {
            cipherSuite = String(cString: name)
        }
        var protocolData: UnsafePointer<UInt8>?
        var protocolLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolData, &protocolLength)
        if let protocolData, protocolLength > 0 {
            negotiatedApplicationProtocol = String(decoding: UnsafeBufferPointer(start: protocolData, count: Int(protocolLength)), as: UTF8.self)
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let ssl, established else { throw TLSError(.connectionClosed, "the connection is closed") }
        guard buffer.count > 0, let base = buffer.baseAddress else { return 0 }
        state.resetTransportError()
        ERR_clear_error()
        var count = 0
        let result = SSL_read_ex(ssl, base, buffer.count, &count)
        if result == 1 { return count }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_ZERO_RETURN { ERR_clear_error(); return 0 }
        if let error = state.transportError { failed = true; ERR_clear_error(); throw error }
        if code == SSL_ERROR_SYSCALL && state.sawEndOfStream { ERR_clear_error(); return 0 }
        failed = true
        throw dataError(code, doing: "reading")
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let ssl, established else { throw TLSError(.connectionClosed, "the connection is closed") }
        guard bytes.count > 0, let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            state.resetTransportError()
            ERR_clear_error()
            var written = 0
            let result = SSL_write_ex(ssl, base + offset, bytes.count - offset, &written)
            guard result == 1 else {
                let code = SSL_get_error(ssl, result)
                failed = true
                if let error = state.transportError { ERR_clear_error(); throw error }
                if code == SSL_ERROR_ZERO_RETURN || (code == SSL_ERROR_SYSCALL && state.sawEndOfStream) {
                    ERR_clear_error()
                    throw TLSError(.connectionClosed, "the peer closed the connection")
                }
                throw dataError(code, doing: "writing")
            }
            offset += written
        }
    }

    func shutdown() {
        if let ssl, established, !failed {
            state.resetTransportError()
            ERR_clear_error()
            _ = SSL_shutdown(ssl)  // sends close_notify; does not wait for the peer's
            ERR_clear_error()
        }
        established = false
        release()
    }

    // MARK: Errors

    /// The error for a failed handshake: the transport's own error, then a closed connection,
    /// then garbage, then a refusal of our client certificate, then OpenSSL's words.
    private func handshakeError(_ result: Int32) -> TLSError {
        let code = ssl.map { SSL_get_error($0, result) } ?? SSL_ERROR_SSL
        let reason = Self.firstSSLReason()
        let text = OpenSSLLibrary.drainErrors()
        if let error = state.callbackError { return error }
        if let error = state.transportError { return error }
        if role == .server && clientAuthentication == .required && state.peerVerified == nil
            && reason == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE {
            // OpenSSL refused the empty client Certificate itself (with a fatal alert); the decision
            // is still recorded where every other one is.
            _ = state.context.verifyPeer(presentedChain: [], protocolVersion: ssl.flatMap(Self.version(of:)))
            return TLSError(.noPeerCertificate, "the client presented no certificate (OpenSSL: \(text))")
        }
        if role == .client && state.peerVerified == nil && reason == SSL_R_CERTIFICATE_VERIFY_FAILED {
            // OpenSSL fails an empty server Certificate message before it reaches the callback.
            _ = state.context.verifyPeer(presentedChain: [], protocolVersion: ssl.flatMap(Self.version(of:)))
            return TLSError(.noPeerCertificate, "the server presented no certificate (OpenSSL: \(text))")
        }
        if code == SSL_ERROR_ZERO_RETURN || state.sawEndOfStream {
            return TLSError(.connectionClosed, "the peer closed the connection during the handshake\(text.isEmpty ? "" : " (OpenSSL: \(text))")")
        }
        if let reason, Self.notTLSReasons.contains(reason) {
            return TLSError(.protocolError, "the peer did not speak TLS (OpenSSL: \(text))")
        }
        if role == .client, let reason, Self.clientCertificateRefusals.contains(reason),
           state.context.challenges.contains(.clientCertificate) {
            return TLSError(.clientCertificateRejected, "the server refused the client certificate (OpenSSL: \(text))")
        }
        if code == SSL_ERROR_SYSCALL && text.isEmpty {
            return TLSError(.transportFailure, "the transport failed during the handshake")
        }
        return TLSError(.handshakeFailed, "OpenSSL: \(text.isEmpty ? "handshake failed (SSL_get_error \(code))" : text)")
    }

    /// The error for a failed read or write after the handshake.
    private func dataError(_ code: Int32, doing what: String) -> TLSError {
        let reason = Self.firstSSLReason()
        let text = OpenSSLLibrary.drainErrors()
        if role == .client, let reason, Self.clientCertificateRefusals.contains(reason),
           state.context.challenges.contains(.clientCertificate) {
            // TLS 1.3: the client finishes before the server has judged its certificate, so the
            // refusal arrives as an alert on the first read.
            return TLSError(.clientCertificateRejected, "the server refused the client certificate (OpenSSL: \(text))")
        }
        if code == SSL_ERROR_SYSCALL && text.isEmpty {
            return TLSError(.transportFailure, "the transport failed while \(what)")
        }
        return TLSError(.protocolError, "OpenSSL failed while \(what): \(text.isEmpty ? "SSL_get_error \(code)" : text)")
    }

    /// Reasons meaning the peer's bytes are not TLS records.
    private static let notTLSReasons: Set<Int32> = [
        SSL_R_WRONG_VERSION_NUMBER, SSL_R_UNKNOWN_PROTOCOL, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_HTTP_REQUEST,
        SSL_R_HTTPS_PROXY_REQUEST, SSL_R_RECORD_LENGTH_MISMATCH, SSL_R_BAD_PACKET_LENGTH, SSL_R_BAD_RECORD_TYPE,
        SSL_R_ENCRYPTED_LENGTH_TOO_LONG, SSL_R_WRONG_SSL_VERSION, SSL_R_BAD_PROTOCOL_VERSION_NUMBER,
    ]

    /// Alerts a server sends when it refuses a client's certificate (or its absence).
    private static let clientCertificateRefusals: Set<Int32> = [
        SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE, SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED,
        SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED, SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN, SSL_R_TLSV1_ALERT_UNKNOWN_CA,
        SSL_R_TLSV1_ALERT_ACCESS_DENIED, SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED, SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE,
        SSL_R_SSLV3_ALERT_NO_CERTIFICATE,
    ]

    /// The reason of the first SSL-library error queued, without taking it off the queue.
    private static func firstSSLReason() -> Int32? {
        let error = ERR_peek_error()
        guard error != 0, ERR_GET_LIB(error) == ERR_LIB_SSL else { return nil }
        return ERR_GET_REASON(error)
    }

    // MARK: Helpers

    /// The OCSP response the server stapled for its leaf, copied out of the SSL; empty when the
    /// client did not ask or none arrived. OpenSSL keeps the leaf's alone (under TLS 1.3 it
    /// ignores responses stapled for other certificates of the chain), so this holds at most one.
    static func stapledOCSPResponses(_ ssl: OpaquePointer, _ state: OpenSSLConnectionState) -> [[UInt8]] {
        guard state.asksForStapledOCSPResponse else { return [] }
        var bytes: UnsafePointer<UInt8>?
        let length = COpenSSL_SSL_get_tlsext_status_ocsp_resp(ssl, &bytes)
        guard length > 0, let bytes else { return [] }
        return [Array(UnsafeBufferPointer(start: bytes, count: Int(length)))]
    }

    private func peerChainAfterHandshake(_ ssl: OpaquePointer) -> [[UInt8]] {
        Self.peerChain(ssl)
    }

    /// The server's chain as OpenSSL kept it (leaf first, on a client).
    static func peerChain(_ ssl: OpaquePointer) -> [[UInt8]] {
        guard let stack = SSL_get_peer_cert_chain(ssl) else { return [] }
        return (0..<COpenSSL_sk_X509_num(stack)).compactMap { COpenSSL_sk_X509_value(stack, $0).flatMap(OpenSSLCertificate.derEncoding(of:)) }
    }

    static func version(of ssl: OpaquePointer) -> TLSVersion? {
        switch SSL_version(ssl) {
        case TLS1_3_VERSION: .tls13
        case TLS1_2_VERSION: .tls12
        default: nil
        }
    }

    private static func wireVersion(_ version: TLSVersion) -> Int32 {
        version == .tls13 ? TLS1_3_VERSION : TLS1_2_VERSION
    }

    /// The identity's key, which only this backend's import can have made.
    static func key(of identity: ClientIdentity, for what: String) throws -> OpenSSLPrivateKey {
        guard let key = identity.privateKey as? OpenSSLPrivateKey else {
            throw TLSError(.invalidConfiguration, "the identity in \(what) (\(identity.certificate.subject)) was imported by another backend (\(type(of: identity.privateKey))); import it with OpenSSLTrustBackend")
        }
        return key
    }

    /// Runs `body` with the identity's leaf as an `X509*` and its chain as a `STACK_OF(X509)*`,
    /// freeing both afterwards (OpenSSL takes its own references).
    static func withX509s(_ identity: ClientIdentity, _ body: (OpaquePointer, OpaquePointer) throws -> Void) throws {
        let leaf = try OpenSSLCertificate(derEncoded: identity.certificate.derEncoded)
        let chain = try identity.certificateChain.map { try OpenSSLCertificate(derEncoded: $0.derEncoded) }
        guard let stack = COpenSSL_sk_X509_new_null() else {
            throw TLSError(.handshakeFailed, "OpenSSL cannot allocate a certificate stack")
        }
        defer { COpenSSL_sk_X509_free(stack) }
        for certificate in chain { _ = COpenSSL_sk_X509_push(stack, certificate.ref) }
        try withExtendedLifetime((leaf, chain)) { try body(leaf.ref, stack) }
    }

    /// ALPN protocols in wire format: each name preceded by its length.
    static func wireFormat(_ protocols: [String]) throws -> [UInt8] {
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw TLSError(.invalidConfiguration, "the ALPN protocol \"\(name)\" must be 1 to 255 bytes long")
            }
            wire.append(UInt8(bytes.count))
            wire += bytes
        }
        return wire
    }
}

/// The C callbacks of ``OpenSSLTLSSession``; each finds its connection's state through the `SSL`'s
/// app data.
enum OpenSSLTLSCallbacks {
    /// Replaces `X509_verify_cert`: the presented chain goes to `context.verifyPeer`, whose answer
    /// is final. A refusal sets `X509_V_ERR_CERT_REJECTED`, which OpenSSL sends as a fatal
    /// `bad_certificate` alert.
    static let verifyPeer: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { store, _ in
        guard let store else { return 0 }
        let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()).map(OpaquePointer.init)
        guard let ssl, let state = OpenSSLConnectionState.of(ssl: ssl) else {
            X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION)
            return 0
        }
        var chain: [[UInt8]] = []
        if let untrusted = X509_STORE_CTX_get0_untrusted(store) {
            for index in 0..<COpenSSL_sk_X509_num(untrusted) {
                guard let x = COpenSSL_sk_X509_value(untrusted, index), let der = OpenSSLCertificate.derEncoding(of: x) else {
                    state.context.recordFailure(TLSError(.peerTrustRefused, "OpenSSL cannot encode certificate \(index) of the presented chain"))
                    state.peerVerified = false
                    X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
                    return 0
                }
                chain.append(der)
            }
        } else if let leaf = X509_STORE_CTX_get0_cert(store), let der = OpenSSLCertificate.derEncoding(of: leaf) {
            chain = [der]
        }
        let version = OpenSSLTLSSession.version(of: ssl)
        if state.asksForStapledOCSPResponse && SSL_is_server(ssl) == 0 && version != .tls13 {
            // TLS 1.2: the CertificateStatus message comes after this one. Hold the chain and
            // accept provisionally; `decidePending` makes the decision once the stapled response
            // is known, before the client sends anything more.
            state.pendingChain = chain
            X509_STORE_CTX_set_error(store, X509_V_OK)
            return 1
        }
        let accepted = state.context.verifyPeer(presentedChain: chain, protocolVersion: version,
                                                stapledOCSPResponses: OpenSSLTLSSession.stapledOCSPResponses(ssl, state))
        state.peerVerified = accepted
        X509_STORE_CTX_set_error(store, accepted ? X509_V_OK : X509_V_ERR_CERT_REJECTED)
        return accepted ? 1 : 0
    }

    /// A client's decision held back by the verify callback (TLS 1.2 with stapling), made now
    /// with the stapled response; the earlier verdict when there is one. A client that reaches
    /// this with neither (OpenSSL skipped the verify callback) is decided on the chain OpenSSL
    /// kept, so no path accepts a server unjudged.
    static func decidePending(_ ssl: OpaquePointer, _ state: OpenSSLConnectionState) -> Bool {
        if let verdict = state.peerVerified, state.pendingChain == nil { return verdict }
        let chain = state.pendingChain ?? OpenSSLTLSSession.peerChain(ssl)
        state.pendingChain = nil
        let accepted = state.context.verifyPeer(presentedChain: chain, protocolVersion: OpenSSLTLSSession.version(of: ssl),
                                                stapledOCSPResponses: OpenSSLTLSSession.stapledOCSPResponses(ssl, state))
        state.peerVerified = accepted
        return accepted
    }

    /// A client's status callback, run when the server's flight is complete (TLS 1.2:
    /// ServerHelloDone; TLS 1.3: Finished) whether or not a response was stapled. It makes a
    /// decision still pending; 0 (refused) makes OpenSSL end the handshake with a fatal
    /// `bad_certificate_status_response` alert before the client's flight.
    static let clientStatus: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
        guard let ssl, let state = OpenSSLConnectionState.of(ssl: ssl) else { return 0 }
        return decidePending(ssl, state) ? 1 : 0
    }

    /// A server's status callback, run when a client asked for stapling: staples a copy of the
    /// configured response (OpenSSL frees it with the SSL).
    static let serverStatus: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
        guard let ssl, let state = OpenSSLConnectionState.of(ssl: ssl) else { return SSL_TLSEXT_ERR_ALERT_FATAL }
        guard let response = state.stapledOCSPResponse else { return SSL_TLSEXT_ERR_NOACK }
        let stapled = response.withUnsafeBufferPointer { COpenSSL_SSL_staple_ocsp_resp_copy(ssl, $0.baseAddress, $0.count) }
        return stapled == 1 ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_ALERT_FATAL
    }

    /// A client's certificate callback, run when the server asked for a certificate: the context
    /// chooses, with the CA names of the CertificateRequest; the chosen identity is set on the SSL.
    static let chooseClientCertificate: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
        guard let ssl, let state = OpenSSLConnectionState.of(ssl: ssl) else { return 0 }
        // TLS 1.2 with stapling: the CertificateRequest comes after CertificateStatus, and OpenSSL
        // runs this callback before its status callback, so a held decision is made here first —
        // the server is judged before the app is asked for a certificate to send it.
        if state.pendingChain != nil && !decidePending(ssl, state) { return 0 }
        var names: [[UInt8]] = []
        if let list = SSL_get0_peer_CA_list(ssl) {
            for index in 0..<COpenSSL_sk_X509_NAME_num(list) {
                guard let name = COpenSSL_sk_X509_NAME_value(list, index) else { continue }
                var out: UnsafeMutablePointer<UInt8>?
                let length = i2d_X509_NAME(name, &out)
                if length > 0, let out {
                    names.append(Array(UnsafeBufferPointer(start: out, count: Int(length))))
                    CRYPTO_free(out, #fileID, #line)
                }
            }
        }
        switch state.context.clientIdentity(acceptableCANames: names, protocolVersion: OpenSSLTLSSession.version(of: ssl)) {
        case .abort:
            return 0
        case .sendNone:
            return 1
        case .send(let identity):
            do {
                let key = try OpenSSLTLSSession.key(of: identity, for: "the answer to the client-certificate challenge")
                try OpenSSLTLSSession.withX509s(identity) { leaf, chain in
                    guard SSL_use_cert_and_key(ssl, leaf, key.ref, chain, 1) == 1 else {
                        throw TLSError(.invalidConfiguration, "OpenSSL refuses the client identity \(identity.certificate.subject): \(OpenSSLLibrary.drainErrors())")
                    }
                }
                return 1
            } catch {
                let failure = error as? TLSError ?? TLSError(.invalidConfiguration, "the client identity cannot be used: \(error)")
                state.callbackError = failure
                state.context.recordFailure(failure)
                return 0
            }
        }
    }

    /// A server's ALPN choice: its own most preferred protocol that the client offers; none (no
    /// ALPN in the reply) when they share none.
    static let selectApplicationProtocol: @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { ssl, out, outLength, offered, offeredLength, _ in
        guard let state = OpenSSLConnectionState.of(ssl: ssl), let out, let outLength, let offered else {
            return SSL_TLSEXT_ERR_NOACK
        }
        let client = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
        var serverIndex = 0
        let server = state.serverALPN
        while serverIndex < server.count {
            let length = Int(server[serverIndex])
            let wanted = server[(serverIndex + 1)..<min(server.count, serverIndex + 1 + length)]
            var clientIndex = 0
            while clientIndex < client.count {
                let offeredCount = Int(client[clientIndex])
                let start = clientIndex + 1
                guard start + offeredCount <= client.count else { break }
                if offeredCount == length && client[start..<(start + offeredCount)].elementsEqual(wanted) {
                    out.pointee = offered + start
                    outLength.pointee = UInt8(offeredCount)
                    return SSL_TLSEXT_ERR_OK
                }
                clientIndex = start + offeredCount
            }
            serverIndex += 1 + length
        }
        return SSL_TLSEXT_ERR_NOACK
    }
}
