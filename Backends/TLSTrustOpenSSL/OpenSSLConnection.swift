internal import COpenSSL
import TLSTrust
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One TLS connection over OpenSSL 3: an `SSL_CTX` and an `SSL` made for it, with a custom `BIO`
/// over the link's `TLSTransportChannel` and the library's hooks reporting to the link; the
/// `TLSConnectionRole` the core's `TLSStateMachine` drives.
///
/// - Peer trust: `SSL_CTX_set_cert_verify_callback` replaces `X509_verify_cert` altogether; the
///   callback hands the chain the peer presented (`X509_STORE_CTX_get0_untrusted`, leaf first) to
///   the link and fails with `X509_V_ERR_CERT_REJECTED` on a refusal, which OpenSSL turns into a
///   fatal `bad_certificate` alert of its own before it goes on with the handshake (so
///   `sendFatalAlert(_:)` has nothing left to send: OpenSSL sends the alert for each failed hook).
/// - Client certificates: `SSL_CTX_set_cert_cb` runs when the server's CertificateRequest is
///   answered; it asks the link with the names of `SSL_get0_peer_CA_list`.
/// - OCSP stapling: a client that asks sends status_request (`SSL_set_tlsext_status_type`) and
///   installs a status callback. The stapled response must reach the decision, and OpenSSL's
///   order differs by version (seen with OpenSSL 3.0): under TLS 1.3 the response rides in the
///   leaf's certificate entry, so it is known when the verify callback runs, and the decision is
///   made there as always. Under TLS 1.2 the CertificateStatus message follows Certificate, so the
///   verify callback runs before it has arrived: it holds the chain instead (`pendingChain`) and
///   accepts provisionally, and the decision is made by whichever runs first of the
///   client-certificate callback (at CertificateRequest, which follows CertificateStatus) and the
///   status callback (at ServerHelloDone). Both run before the client sends its second flight,
///   and a refusal in either ends the handshake with a fatal alert (`internal_error` from the
///   certificate callback, `bad_certificate_status_response` from the status callback), so nothing
///   more is sent to a refused server. A chain still held when the handshake returns is decided
///   then, before it counts as complete.
/// - A server staples a copy of `TLSSessionLink/stapledOCSPResponse` from its status callback
///   whenever a client asks.
/// - SCTs in the handshake: a client that asks registers a custom extension for
///   `signed_certificate_timestamp` (type 18; OpenSSL 3 allows it while its own CT validation is
///   off, and its own would parse, judge and re-encode the list). The client sends it empty; the
///   server's extension_data — in ServerHello under TLS 1.2, in the leaf's certificate entry
///   under TLS 1.3, both before the verify callback runs — is kept as raw bytes
///   (`signedCertificateTimestampList`) and handed to the link with the chain. OpenSSL decides
///   nothing about it.
/// - No resumption: no session cache, no tickets, so every handshake is judged afresh.
final class OpenSSLConnection: TLSConnectionRole {
    let link: TLSSessionLink
    private var ssl: OpaquePointer?
    private var sslContext: OpaquePointer?
    /// A TLS 1.2 client's presented chain, held by the verify callback until the server's
    /// CertificateStatus is known; nil when no decision waits.
    private var pendingChain: [[UInt8]]?
    /// The extension_data of the server's `signed_certificate_timestamp` extension for its leaf,
    /// as received; nil when none arrived (or the client did not ask).
    private(set) var signedCertificateTimestampList: [UInt8]?
    /// OpenSSL reported `SSL_ERROR_SYSCALL` or `SSL_ERROR_SSL`, after which `SSL_shutdown` must
    /// not be called (a read that timed out may still be made again).
    private var fatalErrorSeen = false

    // MARK: Making connections

    /// A client (SNI, ALPN, stapling as the link says, the server's chain reported to the link) or
    /// a server (its identity; a certificate request naming the client anchors when it asks).
    init(link: TLSSessionLink) throws {
        self.link = link
        let ctx = try Self.makeContext(versions: link.versions)
        sslContext = ctx
        if link.side == .client {
            // SSL_VERIFY_PEER only makes OpenSSL act on the verdict; the verdict is the link's.
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            SSL_CTX_set_cert_verify_callback(ctx, OpenSSLTLSCallbacks.verifyPeer, nil)
            SSL_CTX_set_cert_cb(ctx, OpenSSLTLSCallbacks.chooseClientCertificate, nil)
            if link.asksForStapledOCSPResponse { _ = COpenSSL_SSL_CTX_set_tlsext_status_cb(ctx, OpenSSLTLSCallbacks.clientStatus) }
            if link.asksForSignedCertificateTimestamps {
                let contexts = UInt32(SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO | SSL_EXT_TLS1_3_CERTIFICATE)
                guard SSL_CTX_add_custom_ext(ctx, Self.signedCertificateTimestampType, contexts, OpenSSLTLSCallbacks.askForSCTs, nil, nil,
                                             OpenSSLTLSCallbacks.keepSCTs, nil) == 1 else {
                    throw TLSError(.handshakeFailed, "OpenSSL cannot ask for the signed_certificate_timestamp extension: \(OpenSSLLibrary.drainErrors())")
                }
            }
        }
        if let identity = link.serverIdentity {
            let key = try link.serverKey(as: OpenSSLPrivateKey.self)
            try Self.withX509s(identity) { leaf, chain in
                guard SSL_CTX_use_cert_and_key(ctx, leaf, key.ref, chain, 1) == 1 else {
                    throw TLSError(.invalidConfiguration, "OpenSSL refuses the server identity \(identity.certificate.subject): \(OpenSSLLibrary.drainErrors())")
                }
            }
        }
        if link.side == .server && link.clientAuthentication != .none {
            var mode = SSL_VERIFY_PEER
            if link.clientAuthentication == .required { mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT }
            SSL_CTX_set_verify(ctx, mode, nil)
            SSL_CTX_set_cert_verify_callback(ctx, OpenSSLTLSCallbacks.verifyPeer, nil)
            for anchor in link.acceptableClientCAs {
                let x = try OpenSSLCertificate(derEncoded: anchor.derEncoded)
                guard SSL_CTX_add_client_CA(ctx, x.ref) == 1 else {
                    throw TLSError(.invalidConfiguration, "OpenSSL cannot name \(anchor.subject) as an acceptable CA: \(OpenSSLLibrary.drainErrors())")
                }
            }
        }
        if link.side == .server && !link.applicationProtocols.isEmpty {
            SSL_CTX_set_alpn_select_cb(ctx, OpenSSLTLSCallbacks.selectApplicationProtocol, nil)
        }
        if link.stapledOCSPResponse != nil {
            _ = COpenSSL_SSL_CTX_set_tlsext_status_cb(ctx, OpenSSLTLSCallbacks.serverStatus)
        }
        guard let ssl = SSL_new(ctx) else {
            throw TLSError(.handshakeFailed, "OpenSSL cannot make an SSL: \(OpenSSLLibrary.drainErrors())")
        }
        self.ssl = ssl
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        let bio = try OpenSSLTransportIO.makeBIO(for: link.channel)
        SSL_set_bio(ssl, bio, bio)  // the SSL owns the BIO from here
        guard link.side == .client else {
            SSL_set_accept_state(ssl)
            return
        }
        SSL_set_connect_state(ssl)
        if link.asksForStapledOCSPResponse && COpenSSL_SSL_request_ocsp_stapling(ssl) != 1 {
            throw TLSError(.handshakeFailed, "OpenSSL cannot request OCSP stapling: \(OpenSSLLibrary.drainErrors())")
        }
        if let name = link.serverNameIndication, COpenSSL_SSL_set_tlsext_host_name(ssl, name) != 1 {
            throw TLSError(.invalidConfiguration, "OpenSSL refuses \(name) as a server name (SNI): \(OpenSSLLibrary.drainErrors())")
        }
        let alpn = link.applicationProtocols.wireFormat
        // The one OpenSSL call that returns 0 on success.
        if !alpn.isEmpty && SSL_set_alpn_protos(ssl, alpn, UInt32(alpn.count)) != 0 {
            throw TLSError(.invalidConfiguration, "OpenSSL refuses the ALPN list \(link.applicationProtocols.names): \(OpenSSLLibrary.drainErrors())")
        }
    }

    deinit { release() }

    /// An `SSL_CTX` for one connection: the version range, no session cache, no tickets, no
    /// renegotiation, and end of stream read as a close (so that `read` returns 0).
    private static func makeContext(versions: ClosedRange<TLSVersion>) throws -> OpaquePointer {
        _ = OpenSSLLibrary.initialized
        guard let ctx = SSL_CTX_new(TLS_method()) else {
            throw TLSError(.handshakeFailed, "OpenSSL cannot make an SSL_CTX: \(OpenSSLLibrary.drainErrors())")
        }
        guard COpenSSL_SSL_CTX_set_min_proto_version(ctx, wireVersion(versions.lowerBound)) == 1,
              COpenSSL_SSL_CTX_set_max_proto_version(ctx, wireVersion(versions.upperBound)) == 1 else {
            SSL_CTX_free(ctx)
            throw TLSError(.unsupported, "OpenSSL refuses the version range \(versions.lowerBound)…\(versions.upperBound): \(OpenSSLLibrary.drainErrors())")
        }
        _ = SSL_CTX_set_options(ctx, COpenSSL_SSL_OP_NO_TICKET() | COpenSSL_SSL_OP_IGNORE_UNEXPECTED_EOF() | COpenSSL_SSL_OP_NO_RENEGOTIATION())
        _ = COpenSSL_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_OFF))
        _ = SSL_CTX_set_num_tickets(ctx, 0)
        return ctx
    }

    /// The connection behind an `SSL`, from its app data.
    static func of(_ ssl: OpaquePointer?) -> OpenSSLConnection? {
        guard let ssl, let raw = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<OpenSSLConnection>.fromOpaque(raw).takeUnretainedValue()
    }

    // MARK: TLSConnectionRole

    func stepHandshake() throws -> Bool {
        guard let ssl else { throw TLSLibraryFailure(.other, "the OpenSSL session is closed") }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else { throw failure(result, handshaking: true) }
        ERR_clear_error()
        if pendingChain != nil && !decidePending(ssl) {
            throw TLSLibraryFailure(.stoppedByCore, "the server's chain was refused at the end of the handshake")
        }
        return true
    }

    var negotiated: TLSNegotiatedParameters {
        var parameters = TLSNegotiatedParameters(version: nil, cipherSuite: nil, applicationProtocol: nil, isResumed: false)
        guard let ssl else { return parameters }
        parameters.version = Self.version(of: ssl)
        parameters.isResumed = SSL_session_reused(ssl) == 1
        if let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) {
            parameters.cipherSuite = String(cString: name)
        }
        var protocolData: UnsafePointer<UInt8>?
        var protocolLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolData, &protocolLength)
        if let protocolData, protocolLength > 0 {
            parameters.applicationProtocol = String(decoding: UnsafeBufferPointer(start: protocolData, count: Int(protocolLength)), as: UTF8.self)
        }
        return parameters
    }

    /// On a client, the chain OpenSSL kept (leaf first); a server's list lacks the client's leaf,
    /// which is put first.
    var peerChainAfterHandshake: [[UInt8]] {
        guard let ssl else { return [] }
        var chain = Self.peerChain(ssl)
        if link.side == .server, let leaf = SSL_get0_peer_certificate(ssl), let der = OpenSSLCertificate.derEncoding(of: leaf) {
            chain.insert(der, at: 0)
        }
        return chain
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let ssl, let base = buffer.baseAddress else { return 0 }
        ERR_clear_error()
        var count = 0
        let result = SSL_read_ex(ssl, base, buffer.count, &count)
        if result == 1 { return count }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_ZERO_RETURN || (code == SSL_ERROR_SYSCALL && link.channel.sawEndOfStream && link.channel.pendingError == nil) {
            ERR_clear_error()
            return 0
        }
        throw failure(result, handshaking: false)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard let ssl, let base = bytes.baseAddress else { return bytes.count }
        ERR_clear_error()
        var written = 0
        let result = SSL_write_ex(ssl, base, bytes.count, &written)
        if result == 1 { return written }
        throw failure(result, handshaking: false)
    }

    /// Nothing to send: OpenSSL has sent its alert for every hook that failed.
    func sendFatalAlert(_ alert: TLSAlert) {}

    func sendCloseNotify() {
        guard let ssl, !fatalErrorSeen else { return }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)  // sends close_notify; does not wait for the peer's
        ERR_clear_error()
    }

    /// Frees the SSL (and with it the BIO) and the SSL_CTX, without I/O.
    func release() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if let sslContext { SSL_CTX_free(sslContext) }
        sslContext = nil
    }

    // MARK: Errors

    /// What OpenSSL's failure means, in the core's terms. An alert the peer sent is the reason
    /// `SSL_AD_REASON_OFFSET` + its number.
    private func failure(_ result: Int32, handshaking: Bool) -> TLSLibraryFailure {
        let code = ssl.map { SSL_get_error($0, result) } ?? SSL_ERROR_SSL
        if code == SSL_ERROR_SYSCALL || code == SSL_ERROR_SSL { fatalErrorSeen = true }
        let reason = Self.firstSSLReason()
        let text = OpenSSLLibrary.drainErrors()
        let message = "OpenSSL: \(text.isEmpty ? "SSL_get_error \(code)" : text)"
        if link.alertToSend != nil { return TLSLibraryFailure(.stoppedByCore, message) }
        if handshaking && link.peerDecision == nil
            && (link.side == .server && reason == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE
                || link.side == .client && reason == SSL_R_CERTIFICATE_VERIFY_FAILED) {
            // OpenSSL refused an empty Certificate message before the verify callback ran.
            return TLSLibraryFailure(.noPeerCertificate, message)
        }
        if let reason, (SSL_AD_REASON_OFFSET..<(SSL_AD_REASON_OFFSET + 256)).contains(reason) {
            return TLSLibraryFailure(.alertReceived(TLSAlert(rawValue: UInt8(reason - SSL_AD_REASON_OFFSET))), message)
        }
        if code == SSL_ERROR_ZERO_RETURN || link.channel.sawEndOfStream { return TLSLibraryFailure(.peerClosed, message) }
        if let reason, Self.notTLSReasons.contains(reason) { return TLSLibraryFailure(.notTLS, message) }
        if code == SSL_ERROR_SYSCALL && text.isEmpty { return TLSLibraryFailure(.transport, "OpenSSL: SSL_ERROR_SYSCALL") }
        return TLSLibraryFailure(.other, message)
    }

    /// Reasons meaning the peer's bytes are not TLS records.
    private static let notTLSReasons: Set<Int32> = [
        SSL_R_WRONG_VERSION_NUMBER, SSL_R_UNKNOWN_PROTOCOL, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_HTTP_REQUEST,
        SSL_R_HTTPS_PROXY_REQUEST, SSL_R_RECORD_LENGTH_MISMATCH, SSL_R_BAD_PACKET_LENGTH, SSL_R_BAD_RECORD_TYPE,
        SSL_R_ENCRYPTED_LENGTH_TOO_LONG, SSL_R_WRONG_SSL_VERSION, SSL_R_BAD_PROTOCOL_VERSION_NUMBER,
    ]

    /// The reason of the first SSL-library error queued, without taking it off the queue.
    private static func firstSSLReason() -> Int32? {
        let error = ERR_peek_error()
        guard error != 0, ERR_GET_LIB(error) == ERR_LIB_SSL else { return nil }
        return ERR_GET_REASON(error)
    }

    // MARK: The peer's chain

    /// A client's decision held back by the verify callback (TLS 1.2 with stapling), made now
    /// with the stapled response; the link's earlier answer when there is one. A client that
    /// reaches this with neither (OpenSSL skipped the verify callback) is decided on the chain
    /// OpenSSL kept, so no path accepts a server unjudged.
    func decidePending(_ ssl: OpaquePointer) -> Bool {
        let chain = pendingChain ?? Self.peerChain(ssl)
        pendingChain = nil
        return link.peerPresented(chain, protocolVersion: Self.version(of: ssl), stapledOCSPResponses: stapledOCSPResponses(ssl),
                                  signedCertificateTimestampList: signedCertificateTimestampList)
    }

    /// The TLS extension type of `signed_certificate_timestamp` (RFC 6962 §3.3.1).
    static let signedCertificateTimestampType: UInt32 = 18

    /// Keeps the server's SCT list for its leaf; a second one for the same leaf is refused.
    func keep(signedCertificateTimestampList list: [UInt8]) -> Bool {
        guard signedCertificateTimestampList == nil else { return false }
        signedCertificateTimestampList = list
        return true
    }

    /// Holds a TLS 1.2 client's chain until the stapled response is known.
    func hold(_ chain: [[UInt8]]) { pendingChain = chain }

    /// Whether a decision waits for the stapled response.
    var holdsChain: Bool { pendingChain != nil }

    /// The OCSP response the server stapled for its leaf, copied out of the SSL; empty when the
    /// client did not ask or none arrived. OpenSSL keeps the leaf's alone (under TLS 1.3 it
    /// ignores responses stapled for other certificates of the chain), so this holds at most one.
    func stapledOCSPResponses(_ ssl: OpaquePointer) -> [[UInt8]] {
        guard link.asksForStapledOCSPResponse else { return [] }
        var bytes: UnsafePointer<UInt8>?
        let length = COpenSSL_SSL_get_tlsext_status_ocsp_resp(ssl, &bytes)
        guard length > 0, let bytes else { return [] }
        return [Array(UnsafeBufferPointer(start: bytes, count: Int(length)))]
    }

    /// The peer's chain as OpenSSL kept it (leaf first, on a client).
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
}

/// The C callbacks of `OpenSSLConnection`; each finds its connection through the `SSL`'s app data.
enum OpenSSLTLSCallbacks {
    /// Replaces `X509_verify_cert`: the presented chain goes to the link, whose answer is final. A
    /// refusal sets `X509_V_ERR_CERT_REJECTED`, which OpenSSL sends as a fatal `bad_certificate` alert.
    static let verifyPeer: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { store, _ in
        guard let store else { return 0 }
        let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()).map(OpaquePointer.init)
        guard let ssl, let owner = OpenSSLConnection.of(ssl) else {
            X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION)
            return 0
        }
        var chain: [[UInt8]] = []
        if let untrusted = X509_STORE_CTX_get0_untrusted(store) {
            for index in 0..<COpenSSL_sk_X509_num(untrusted) {
                guard let x = COpenSSL_sk_X509_value(untrusted, index), let der = OpenSSLCertificate.derEncoding(of: x) else {
                    owner.link.fail(TLSError(.peerTrustRefused, "OpenSSL cannot encode certificate \(index) of the presented chain"))
                    X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
                    return 0
                }
                chain.append(der)
            }
        } else if let leaf = X509_STORE_CTX_get0_cert(store), let der = OpenSSLCertificate.derEncoding(of: leaf) {
            chain = [der]
        }
        let version = OpenSSLConnection.version(of: ssl)
        if owner.link.asksForStapledOCSPResponse && version != .tls13 {
            // TLS 1.2: the CertificateStatus message comes after this one. Hold the chain and
            // accept provisionally; `decidePending` makes the decision once the stapled response
            // is known, before the client sends anything more.
            owner.hold(chain)
            X509_STORE_CTX_set_error(store, X509_V_OK)
            return 1
        }
        let accepted = owner.link.peerPresented(chain, protocolVersion: version, stapledOCSPResponses: owner.stapledOCSPResponses(ssl),
                                                signedCertificateTimestampList: owner.signedCertificateTimestampList)
        X509_STORE_CTX_set_error(store, accepted ? X509_V_OK : X509_V_ERR_CERT_REJECTED)
        return accepted ? 1 : 0
    }

    /// A client's status callback, run when the server's flight is complete (TLS 1.2:
    /// ServerHelloDone; TLS 1.3: Finished) whether or not a response was stapled. It makes a
    /// decision still pending; 0 (refused) makes OpenSSL end the handshake with a fatal
    /// `bad_certificate_status_response` alert before the client's flight.
    static let clientStatus: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
        guard let ssl, let owner = OpenSSLConnection.of(ssl) else { return 0 }
        return owner.decidePending(ssl) ? 1 : 0
    }

    /// A server's status callback, run when a client asked for stapling: staples a copy of the
    /// configured response (OpenSSL frees it with the SSL).
    static let serverStatus: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
        guard let ssl, let owner = OpenSSLConnection.of(ssl) else { return SSL_TLSEXT_ERR_ALERT_FATAL }
        guard let response = owner.link.stapledOCSPResponse else { return SSL_TLSEXT_ERR_NOACK }
        let stapled = response.withUnsafeBufferPointer { COpenSSL_SSL_staple_ocsp_resp_copy(ssl, $0.baseAddress, $0.count) }
        return stapled == 1 ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_ALERT_FATAL
    }

    /// A client's `signed_certificate_timestamp` in its ClientHello: empty, as RFC 6962 §3.3.1
    /// has it; nothing in any other message.
    static let askForSCTs: @convention(c) (
        OpaquePointer?, UInt32, UInt32, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<Int>?,
        OpaquePointer?, Int, UnsafeMutablePointer<Int32>?, UnsafeMutableRawPointer?
    ) -> Int32 = { _, _, context, out, outLength, _, _, _, _ in
        guard context & UInt32(SSL_EXT_CLIENT_HELLO) != 0, let out, let outLength else { return 0 }
        out.pointee = nil
        outLength.pointee = 0
        return 1
    }

    /// The server's `signed_certificate_timestamp`: its bytes, unparsed, for the leaf (TLS 1.2
    /// ServerHello; TLS 1.3 the first certificate entry). Lists in later entries concern
    /// intermediates, which Certificate Transparency does not judge, and are passed over.
    static let keepSCTs: @convention(c) (
        OpaquePointer?, UInt32, UInt32, UnsafePointer<UInt8>?, Int, OpaquePointer?, Int,
        UnsafeMutablePointer<Int32>?, UnsafeMutableRawPointer?
    ) -> Int32 = { ssl, _, context, bytes, length, _, chainIndex, alert, _ in
        guard let ssl, let owner = OpenSSLConnection.of(ssl) else { return 0 }
        let forLeaf = context & UInt32(SSL_EXT_TLS1_2_SERVER_HELLO) != 0
            || (context & UInt32(SSL_EXT_TLS1_3_CERTIFICATE) != 0 && chainIndex == 0)
        guard forLeaf else { return 1 }
        let list = length > 0 && bytes != nil ? Array(UnsafeBufferPointer(start: bytes, count: length)) : []
        guard owner.keep(signedCertificateTimestampList: list) else {
            alert?.pointee = Int32(SSL_AD_DECODE_ERROR)
            return 0
        }
        return 1
    }

    /// A client's certificate callback, run when the server asked for a certificate: the link
    /// chooses, with the CA names of the CertificateRequest; the chosen identity is set on the SSL.
    static let chooseClientCertificate: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
        guard let ssl, let owner = OpenSSLConnection.of(ssl) else { return 0 }
        // TLS 1.2 with stapling: the CertificateRequest comes after CertificateStatus, and OpenSSL
        // runs this callback before its status callback, so a held decision is made here first —
        // the server is judged before the app is asked for a certificate to send it.
        if owner.holdsChain && !owner.decidePending(ssl) { return 0 }
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
        switch owner.link.certificateRequested(acceptableCANames: names, protocolVersion: OpenSSLConnection.version(of: ssl),
                                               keyType: OpenSSLPrivateKey.self) {
        case .abort:
            return 0
        case .sendNone:
            return 1
        case .send(let identity, let key):
            do {
                try OpenSSLConnection.withX509s(identity) { leaf, chain in
                    guard SSL_use_cert_and_key(ssl, leaf, key.ref, chain, 1) == 1 else {
                        throw TLSError(.invalidConfiguration, "OpenSSL refuses the client identity \(identity.certificate.subject): \(OpenSSLLibrary.drainErrors())")
                    }
                }
                return 1
            } catch {
                owner.link.fail(error)
                return 0
            }
        }
    }

    /// A server's ALPN choice (`TLSApplicationProtocols/select(offered:)`); none (no ALPN in the
    /// reply) when they share none.
    static let selectApplicationProtocol: @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { ssl, out, outLength, offered, offeredLength, _ in
        guard let owner = OpenSSLConnection.of(ssl), let out, let outLength, let offered,
              let chosen = owner.link.applicationProtocols.select(offered: UnsafeBufferPointer(start: offered, count: Int(offeredLength))) else {
            return SSL_TLSEXT_ERR_NOACK
        }
        out.pointee = offered + chosen.lowerBound
        outLength.pointee = UInt8(chosen.count)
        return SSL_TLSEXT_ERR_OK
    }
}
