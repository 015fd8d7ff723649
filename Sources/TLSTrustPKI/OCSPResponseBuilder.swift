import Foundation

/// Mints DER `OCSPResponse`s (RFC 6960 §4.2.1) at test time, with every field a knob, so that
/// tests can hand a verifier both honest answers and every shape an attacker or a broken
/// responder produces.
///
/// The TBS part (`ResponseData`) is written in Swift and signed once by the signer's key: OpenSSL's
/// `OCSP_basic_sign` insists on a matching certificate and key, on its own responderID and on
/// current times, and those are exactly the things hostile tests must vary. The result reads back
/// with `openssl ocsp -respin … -resp_text` (the kit's tests check that).
///
/// ```swift
/// var builder = OCSPResponseBuilder(signer: ca, responses: [
///     .init(certID: try .init(certificate: leaf, issuer: ca), status: .revoked(at: date, reason: .keyCompromise)),
/// ])
/// builder.nonce = requestNonce
/// let der = try builder.build()
/// ```
public struct OCSPResponseBuilder: Sendable {
    /// `OCSPResponseStatus` (RFC 6960 §4.2.1). Only `successful` carries responseBytes; the raw
    /// value is written as is, so 4 (unassigned) or 99 can be minted too.
    public struct ResponseStatus: RawRepresentable, Sendable, Hashable {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let successful = Self(rawValue: 0)
        public static let malformedRequest = Self(rawValue: 1)
        public static let internalError = Self(rawValue: 2)
        public static let tryLater = Self(rawValue: 3)
        public static let sigRequired = Self(rawValue: 5)
        public static let unauthorized = Self(rawValue: 6)
    }

    /// The hash of a certID (RFC 6960 §4.1.1; RFC 5019 clients use SHA-1, others SHA-256).
    public enum CertIDHash: Sendable, Hashable {
        case sha1, sha256
        var digest: SignatureDigest { self == .sha1 ? .sha1 : .sha256 }
        var oid: String { self == .sha1 ? "1.3.14.3.2.26" : "2.16.840.1.101.3.4.2.1" }
    }

    /// `CertID`: which certificate an answer is about. Every field is settable, so a test can
    /// answer for another serial number, another issuer's name, or another key.
    public struct CertID: Sendable, Hashable {
        public var hash: CertIDHash
        /// Hash of the issuer's subject Name DER.
        public var issuerNameHash: [UInt8]
        /// Hash of the issuer's subjectPublicKey bits.
        public var issuerKeyHash: [UInt8]
        /// The certificate's serial number, big-endian content octets.
        public var serialNumber: [UInt8]

        public init(hash: CertIDHash, issuerNameHash: [UInt8], issuerKeyHash: [UInt8], serialNumber: [UInt8]) {
            self.hash = hash
            self.issuerNameHash = issuerNameHash
            self.issuerKeyHash = issuerKeyHash
            self.serialNumber = serialNumber
        }

        /// The certID of `certificate` as issued by `issuer`. For a certID that names the wrong
        /// certificate or issuer, pass another one here (an unrelated CA as `issuer`, a sibling
        /// leaf as `certificate`) or change a field afterwards.
        public init(certificate: TestCertificate, issuer: TestCertificate, hash: CertIDHash = .sha1) throws {
            self.init(hash: hash,
                      issuerNameHash: try SignedDER.hash(issuer.subjectNameDER, hash.digest),
                      issuerKeyHash: try SignedDER.hash(issuer.subjectPublicKeyBits, hash.digest),
                      serialNumber: certificate.certificate.serialNumber)
        }

        /// The DER `CertID`, also what an `OCSPRequest` carries.
        public var der: [UInt8] {
            DER.sequence([
                DER.sequence([DER.objectIdentifier(hash.oid), DER.null]),
                DER.octetString(issuerNameHash), DER.octetString(issuerKeyHash),
                SignedDER.integer(bytes: serialNumber),
            ])
        }
    }

    /// `CertStatus` (RFC 6960 §4.2.1).
    public enum CertStatus: Sendable, Hashable {
        case good
        /// Revoked at `time`, with a revocationReason when `reason` is not nil.
        case revoked(at: Date, reason: TestRevocationReason? = nil)
        case unknown

        var der: [UInt8] {
            switch self {
            case .good: return DER.contextSpecific(0, constructed: false, [])
            case .unknown: return DER.contextSpecific(2, constructed: false, [])
            case .revoked(let time, let reason):
                let reasonField = reason.map { [DER.contextSpecific(0, constructed: true, SignedDER.enumerated($0.rawValue))] } ?? []
                return DER.contextSpecific(1, constructed: true, SignedDER.generalizedTime(time) + reasonField.flatMap { $0 })
            }
        }
    }

    /// One `SingleResponse`: a status for one certID, with its own validity window.
    public struct SingleResponse: Sendable, Hashable {
        public var certID: CertID
        public var status: CertStatus
        /// Default: one hour ago.
        public var thisUpdate: Date
        /// Default: in one day; nil leaves the field out ("newer information is always available").
        public var nextUpdate: Date?
        /// singleExtensions, written as given.
        public var extensions: [RawExtension]

        public init(certID: CertID, status: CertStatus, thisUpdate: Date = Date(timeIntervalSinceNow: -3600),
                    nextUpdate: Date? = Date(timeIntervalSinceNow: 86400), extensions: [RawExtension] = []) {
            self.certID = certID
            self.status = status
            self.thisUpdate = thisUpdate
            self.nextUpdate = nextUpdate
            self.extensions = extensions
        }

        var der: [UInt8] {
            var fields = [certID.der, status.der, SignedDER.generalizedTime(thisUpdate)]
            if let nextUpdate { fields.append(DER.contextSpecific(0, constructed: true, SignedDER.generalizedTime(nextUpdate))) }
            if !extensions.isEmpty { fields.append(DER.contextSpecific(1, constructed: true, SignedDER.extensions(extensions))) }
            return DER.sequence(fields)
        }
    }

    /// `ResponderID` (RFC 6960 §4.2.1): the responder's subject name, or the SHA-1 of its key.
    public enum ResponderID: Sendable, Hashable {
        /// `byName`: this DER Name (from ``TestCertificate/subjectNameDER``, or any bytes).
        case byName([UInt8])
        /// `byKey`: this KeyHash (SHA-1 of the responder's subjectPublicKey bits, or any bytes).
        case byKey([UInt8])

        /// byName of `certificate`'s subject.
        public static func name(of certificate: TestCertificate) throws -> ResponderID { .byName(try certificate.subjectNameDER) }
        /// byKey of `certificate`'s key.
        public static func keyHash(of certificate: TestCertificate) throws -> ResponderID {
            .byKey(try SignedDER.hash(certificate.subjectPublicKeyBits, .sha1))
        }

        var der: [UInt8] {
            switch self {
            case .byName(let name): DER.contextSpecific(1, constructed: true, name)
            case .byKey(let hash): DER.contextSpecific(2, constructed: true, DER.octetString(hash))
            }
        }
    }

    /// id-pkix-ocsp-nonce (RFC 6960 §4.4.1).
    public static let nonceOID = "1.3.6.1.5.5.7.48.1.2"
    /// id-pkix-ocsp-basic, the only responseType RFC 6960 defines.
    public static let basicResponseTypeOID = "1.3.6.1.5.5.7.48.1.1"

    /// The outer status; anything but `.successful` writes no responseBytes (the rest is ignored).
    public var responseStatus: ResponseStatus = .successful
    /// The answers, in order (several, none, or duplicates are all allowed).
    public var responses: [SingleResponse]
    /// The key that signs ResponseData: the issuer CA's, a delegated responder's, the leaf's, an
    /// unrelated key…
    public var signingKey: TestPrivateKey
    /// Default: byName of the signer certificate given to `init`.
    public var responderID: ResponderID
    /// Default: now.
    public var producedAt: Date = Date()
    /// A nonce extension echoing this value (written as `OCTET STRING` inside extnValue, RFC 8954).
    public var nonce: [UInt8]? = nil
    /// More responseExtensions, after the nonce.
    public var responseExtensions: [RawExtension] = []
    /// Certificates in the `certs` field (a delegated responder's certificate, and anything else).
    public var certificates: [TestCertificate] = []
    /// The digest of the signature (ignored for Ed25519).
    public var signatureDigest: SignatureDigest = .sha256
    /// Writes this AlgorithmIdentifier DER instead of the one that matches the signature.
    public var signatureAlgorithmOverride: [UInt8]? = nil
    /// Flips a bit of the signature, so that it does not verify.
    public var corruptsSignature = false
    /// The responseType OID (default id-pkix-ocsp-basic; another one must be refused).
    public var responseType: String = OCSPResponseBuilder.basicResponseTypeOID
    /// Writes `version [0] v1` explicitly (DER forbids writing a DEFAULT value; strict parsers refuse it).
    public var writesExplicitVersion = false

    /// A successful response signed by `signer`'s key, responderID byName of `signer`. When the
    /// signer is a delegated responder, also put its certificate in ``certificates``.
    public init(signer: TestCertificate, responses: [SingleResponse]) throws {
        self.responses = responses
        self.signingKey = signer.privateKey
        self.responderID = try .name(of: signer)
    }

    /// A response with a status other than successful: only the status is written.
    public static func unsuccessful(_ status: ResponseStatus) -> [UInt8] {
        DER.sequence([SignedDER.enumerated(status.rawValue)])
    }

    /// The DER `ResponseData` that is signed.
    public func responseDataDER() -> [UInt8] {
        var extensions = nonce.map { [RawExtension(oid: Self.nonceOID, isCritical: false, valueDER: DER.octetString($0))] } ?? []
        extensions += responseExtensions
        var fields: [[UInt8]] = []
        if writesExplicitVersion { fields.append(DER.contextSpecific(0, constructed: true, DER.integer(0))) }
        fields += [responderID.der, SignedDER.generalizedTime(producedAt), DER.sequence(responses.map(\.der))]
        if !extensions.isEmpty { fields.append(DER.contextSpecific(1, constructed: true, SignedDER.extensions(extensions))) }
        return DER.sequence(fields)
    }

    /// The DER `BasicOCSPResponse` (signed ResponseData plus certs).
    public func basicResponseDER() throws -> [UInt8] {
        var parts = try SignedDER.signedParts(responseDataDER(), key: signingKey, digest: signatureDigest,
                                              algorithmOverride: signatureAlgorithmOverride, corrupt: corruptsSignature)
        if !certificates.isEmpty {
            parts.append(DER.contextSpecific(0, constructed: true, DER.sequence(certificates.map(\.der))))
        }
        return DER.sequence(parts)
    }

    /// The DER `OCSPResponse`.
    public func build() throws -> [UInt8] {
        guard responseStatus == .successful else { return Self.unsuccessful(responseStatus) }
        let responseBytes = DER.sequence([DER.objectIdentifier(responseType), DER.octetString(try basicResponseDER())])
        return DER.sequence([SignedDER.enumerated(responseStatus.rawValue), DER.contextSpecific(0, constructed: true, responseBytes)])
    }
}

extension TestPKI {
    /// The usual OCSP answer in one call: `status` for `certificate`, signed by `signer` (the
    /// issuer itself when nil; a delegated responder's certificate is then included).
    public static func ocspResponse(
        for certificate: TestCertificate, issuer: TestCertificate, status: OCSPResponseBuilder.CertStatus = .good,
        signer: TestCertificate? = nil, hash: OCSPResponseBuilder.CertIDHash = .sha1, nonce: [UInt8]? = nil
    ) throws -> [UInt8] {
        var builder = try OCSPResponseBuilder(signer: signer ?? issuer, responses: [
            .init(certID: try .init(certificate: certificate, issuer: issuer, hash: hash), status: status),
        ])
        if let signer { builder.certificates = [signer] }
        builder.nonce = nonce
        return try builder.build()
    }

    /// A DER `OCSPRequest` (RFC 6960 §4.1.1) for `certIDs`, unsigned, with an optional nonce: what
    /// a client POSTs, for tests of fetchers and real responders.
    public static func ocspRequest(for certIDs: [OCSPResponseBuilder.CertID], nonce: [UInt8]? = nil) -> [UInt8] {
        var tbs: [[UInt8]] = [DER.sequence(certIDs.map { DER.sequence([$0.der]) })]
        if let nonce {
            let ext = RawExtension(oid: OCSPResponseBuilder.nonceOID, isCritical: false, valueDER: DER.octetString(nonce))
            tbs.append(DER.contextSpecific(2, constructed: true, SignedDER.extensions([ext])))
        }
        return DER.sequence([DER.sequence(tbs)])
    }
}
