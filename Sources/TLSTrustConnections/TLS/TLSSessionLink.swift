import TLSTrustCore
import TLSTrustDecisions
/// What the core gives one library connection (a ``TLSConnectionRole``): the checked settings of
/// the configuration, the transport it must read and write through, and the calls by which it
/// reports the handshake's events to the core and learns the core's decisions.
///
/// The link decides; the role obeys. When the peer's chain arrives the role calls
/// ``peerPresented(_:protocolVersion:stapledOCSPResponses:signedCertificateTimestampList:)`` and fails its library's hook on
/// false; when a server asks for a certificate it calls
/// ``certificateRequested(acceptableCANames:protocolVersion:keyType:)`` and does what the answer
/// says. The rules behind the answers live here once: a peer is judged once per handshake, a
/// client that sends no certificate to a server that only asks for one is let in unjudged, every
/// other chain (an empty one included) goes to ``TLSHandshakeContext/verifyPeer(presentedChain:protocolVersion:stapledOCSPResponses:signedCertificateTimestampList:)``,
/// an identity whose key another backend holds is never sent, and each refusal names the alert
/// the handshake ends with (``alertToSend``).
///
/// Used from the connection's thread only, like the session that owns it.
public final class TLSSessionLink {
    /// Which side this is.
    public let side: TLSHandshakeContext.Role
    /// The core's trust decisions for this handshake.
    public let context: TLSHandshakeContext
    /// The bytes under TLS, with the error a library callback could not throw.
    public let channel: TLSTransportChannel
    /// The version range, checked against what the backend supports.
    public let versions: ClosedRange<TLSVersion>
    /// ALPN names to offer (client) or accept (server), checked.
    public let applicationProtocols: TLSApplicationProtocols
    /// The DNS name a client sends in SNI (``ServerNameIndication``); nil on a server and for an
    /// IP literal.
    public let serverNameIndication: String?
    /// Whether a client asks the server to staple an OCSP response and hands it to the decision.
    public let asksForStapledOCSPResponse: Bool
    /// The DER OCSP response a server staples when asked (never empty).
    public let stapledOCSPResponse: [UInt8]?
    /// Whether a client asks the server for its SCT list (the `signed_certificate_timestamp`
    /// extension, type 18, RFC 6962 §3.3) and hands the list to the decision: only when the
    /// client configuration has a Certificate Transparency policy and the library can ask.
    public let asksForSignedCertificateTimestamps: Bool
    /// Whether a server asks clients for certificates.
    public let clientAuthentication: TLSClientAuthentication
    /// The CAs a server names as acceptable in its CertificateRequest (its client anchors).
    public let acceptableClientCAs: [Certificate]
    /// The identity a server presents (its key is checked to be the backend's own).
    public let serverIdentity: ClientIdentity?

    /// The peer decision, once made: true accepted, false refused; nil while none was made.
    public private(set) var peerDecision: Bool?
    /// The fatal alert the core chose for a handshake it ended (bad_certificate for a refused
    /// peer, handshake_failure for a cancelled certificate request, internal_error for an identity
    /// the library cannot use); nil while the core has ended nothing.
    public private(set) var alertToSend: TLSAlert?

    init(side: TLSHandshakeContext.Role, context: TLSHandshakeContext, transport: any TLSTransport,
         versions: ClosedRange<TLSVersion>, applicationProtocols: TLSApplicationProtocols, serverNameIndication: String?,
         asksForStapledOCSPResponse: Bool, stapledOCSPResponse: [UInt8]?, asksForSignedCertificateTimestamps: Bool = false,
         clientAuthentication: TLSClientAuthentication, acceptableClientCAs: [Certificate], serverIdentity: ClientIdentity?) {
        self.side = side
        self.context = context
        channel = TLSTransportChannel(transport: transport, context: context)
        self.versions = versions
        self.applicationProtocols = applicationProtocols
        self.serverNameIndication = serverNameIndication
        self.asksForStapledOCSPResponse = asksForStapledOCSPResponse
        self.stapledOCSPResponse = stapledOCSPResponse
        self.asksForSignedCertificateTimestamps = asksForSignedCertificateTimestamps
        self.clientAuthentication = clientAuthentication
        self.acceptableClientCAs = acceptableClientCAs
        self.serverIdentity = serverIdentity
    }

    /// The side whose chain this connection judges, in words.
    var peerName: String { side == .client ? "server" : "client" }

    // MARK: Events

    /// The peer's chain has arrived (exactly as presented, leaf first; empty when it sent none):
    /// the core's decision. Call it before the library goes on with the handshake, and fail the
    /// library's hook on false; a second call returns the first answer.
    ///
    /// - Parameters:
    ///   - chain: the peer's certificates' DER, exactly as presented, leaf first.
    ///   - protocolVersion: the version being negotiated, when the library knows it already.
    ///   - stapledOCSPResponses: what the server stapled, the leaf's first; pass them only
    ///     when ``asksForStapledOCSPResponse`` (a library that receives them unasked keeps them).
    ///   - signedCertificateTimestampList: the extension_data of the server's
    ///     `signed_certificate_timestamp` extension for its leaf, exactly as received (a
    ///     SignedCertificateTimestampList, RFC 6962 §3.3); nil when none arrived. Used only when
    ///     ``asksForSignedCertificateTimestamps``.
    public func peerPresented(_ chain: [[UInt8]], protocolVersion: TLSVersion?, stapledOCSPResponses: [[UInt8]] = [],
                              signedCertificateTimestampList: [UInt8]? = nil) -> Bool {
        if let peerDecision { return peerDecision }
        // A client that sends no certificate to a server that only asks for one is let in
        // unjudged; every other case, an empty chain included, is the core's to decide.
        let accepted = side == .server && chain.isEmpty && clientAuthentication == .optional
            || context.verifyPeer(presentedChain: chain, protocolVersion: protocolVersion,
                                  stapledOCSPResponses: asksForStapledOCSPResponse ? stapledOCSPResponses : [],
                                  signedCertificateTimestampList: asksForSignedCertificateTimestamps ? signedCertificateTimestampList : nil)
        peerDecision = accepted
        if !accepted { end(with: .badCertificate) }
        return accepted
    }

    /// The server asked this client for a certificate: the identity to send, with its key as
    /// this backend's type, or none, or abort (end the handshake).
    public func certificateRequested<Key: PrivateKeyHandle>(acceptableCANames: [[UInt8]]?, protocolVersion: TLSVersion?,
                                                            keyType: Key.Type) -> TLSCertificateAnswer<Key> {
        switch context.clientIdentity(acceptableCANames: acceptableCANames, protocolVersion: protocolVersion) {
        case .sendNone:
            return .sendNone
        case .abort:
            end(with: .handshakeFailure)
            return .abort
        case .send(let identity):
            do {
                return .send(identity, try identity.privateKey(as: keyType, for: "the answer to the client-certificate challenge",
                                                               backend: context.backend.name))
            } catch {
                fail(error)
                return .abort
            }
        }
    }

    /// The library could not do what the core decided (it refused the chosen identity, say):
    /// the error is the connection's, and the handshake ends with internal_error.
    public func fail(_ error: any Error) {
        context.recordFailure(error as? TLSError ?? TLSError(.invalidConfiguration, "\(error)"))
        end(with: .internalError)
    }

    private func end(with alert: TLSAlert) {
        if alertToSend == nil { alertToSend = alert }
    }
}

/// The core's answer to a server's certificate request.
public enum TLSCertificateAnswer<Key: PrivateKeyHandle> {
    /// Send this identity, whose key is `key`.
    case send(ClientIdentity, Key)
    /// Send no certificate (the server decides whether that is acceptable).
    case sendNone
    /// End the handshake (``TLSSessionLink/alertToSend`` says with which alert).
    case abort
}

extension ClientIdentity {
    /// The identity's key as `Key`, the handle of the backend that must use it: a key another
    /// backend imported stays inside that backend's library and cannot sign here.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` naming the identity, the key's type and the
    ///   backend to import it with.
    public func privateKey<Key: PrivateKeyHandle>(as keyType: Key.Type, for use: String, backend: String) throws -> Key {
        guard let key = privateKey as? Key else { throw TLSSessionLink.foreignKey(self, for: use, backend: backend) }
        return key
    }
}

extension TLSSessionLink {
    /// The server identity's key as the backend's own handle (checked when the session was made).
    public func serverKey<Key: PrivateKeyHandle>(as keyType: Key.Type) throws -> Key {
        guard let serverIdentity else { throw TLSError(.invalidConfiguration, "a client session has no server identity") }
        return try serverIdentity.privateKey(as: keyType, for: "the server configuration", backend: context.backend.name)
    }

    /// Refuses an identity whose key is not of `backend`'s key type.
    static func checkOwner(of identity: ClientIdentity, for use: String, backend: some TLSLibraryBackend) throws {
        guard ObjectIdentifier(type(of: identity.privateKey)) == ObjectIdentifier(backend.privateKeyType) else {
            throw foreignKey(identity, for: use, backend: backend.name)
        }
    }

    static func foreignKey(_ identity: ClientIdentity, for use: String, backend: String) -> TLSError {
        TLSError(.invalidConfiguration, "the identity in \(use) (\(identity.certificate.subject)) holds a key another backend imported (\(type(of: identity.privateKey))); import it with the \(backend) backend's importPKCS12 or importIdentity")
    }
}
