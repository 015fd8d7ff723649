import Foundation

/// An OCSP response (RFC 6960 §4.2), read strictly by the core: what a server staples, what an
/// app supplies (`--ocsp-response`, `SecTrustSetOCSPResponse`) or what a responder answered.
///
/// Parsing checks structure only. Whether the response may be believed — who signed it, for which
/// certificate, and whether it is current — is decided by the engine when it checks a path
/// (docs/revocation.md), because that needs the issuer, the date and a backend to verify with.
///
/// ```swift
/// let response = try OCSPResponse(derEncoded: stapledBytes)
/// print(response.responses.map(\.status))
/// ```
public struct OCSPResponse: Sendable, Hashable, CustomStringConvertible {
    /// OCSPResponseStatus (RFC 6960 §4.2.1).
    public enum ResponseStatus: Int, Sendable, Hashable, CustomStringConvertible {
        case successful = 0, malformedRequest = 1, internalError = 2, tryLater = 3, sigRequired = 5, unauthorized = 6

        public var description: String {
            switch self {
            case .successful: "successful"
            case .malformedRequest: "malformedRequest"
            case .internalError: "internalError"
            case .tryLater: "tryLater"
            case .sigRequired: "sigRequired"
            case .unauthorized: "unauthorized"
            }
        }
    }

    /// Who signed the response: named, or by the SHA-1 hash of its public key's bits.
    public enum ResponderID: Sendable, Hashable, CustomStringConvertible {
        case byName(DistinguishedName)
        case byKeyHash([UInt8])

        public var description: String {
            switch self {
            case .byName(let name): "\(name)"
            case .byKeyHash(let hash): "key hash \(hash.hexString())"
            }
        }
    }

    /// A certificate's status in one SingleResponse.
    public enum CertificateStatus: Sendable, Hashable, CustomStringConvertible {
        case good
        case revoked(at: Date, reason: RevocationReason?)
        case unknown

        public var description: String {
            switch self {
            case .good: "good"
            case .revoked(let date, let reason): "revoked at \(date)\(reason.map { " (\($0))" } ?? "")"
            case .unknown: "unknown"
            }
        }
    }

    /// The answer for one certificate.
    public struct SingleResponse: Sendable, Hashable {
        public let certID: OCSPCertID
        public let status: CertificateStatus
        public let thisUpdate: Date
        public let nextUpdate: Date?
        /// A critical singleExtension the core does not process: this answer is not used.
        public let unprocessedCriticalExtension: String?
        /// The `extnValue` contents of the SCT list singleExtension (RFC 6962 §3.3), or nil.
        /// Read it with ``SignedCertificateTimestampList/init(extensionValue:)``.
        public let sctListExtensionValue: [UInt8]?
    }

    /// The response's DER, exactly as given.
    public let derEncoded: [UInt8]
    public let status: ResponseStatus
    /// The signer's identity; nil unless ``status`` is successful.
    public let responderID: ResponderID?
    public let producedAt: Date?
    public let responses: [SingleResponse]
    /// The nonce extension's value, when the responder echoed one (RFC 8954).
    public let nonce: [UInt8]?
    /// Certificates the responder included (a delegated responder's own certificate).
    public let certificates: [Certificate]
    /// A critical responseExtension the core does not process: the response is not used.
    public let unprocessedCriticalExtension: String?
    /// The signature algorithm, as named in the response.
    public let signatureAlgorithm: SignatureAlgorithm?
    let signatureScheme: SignatureScheme?
    /// Signature results by signer and backend, so the answer is verified once (not part of equality).
    let verifiedSigners = SignerMemo()
    let tbsRange: Range<Int>
    let signatureRange: Range<Int>

    /// The most SingleResponses and certificates one response may carry: a stapled response has
    /// one or a few; more is hostile, and refused before any work is spent on it.
    public static let maximumSingleResponses = 64
    public static let maximumCertificates = 8

    /// Parses one DER OCSPResponse.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` for bytes that are not a well-formed DER
    ///   OCSPResponse, a response type other than id-pkix-ocsp-basic, or a response over the limits.
    public init(derEncoded der: [UInt8]) throws {
        do {
            var outer = DERReader(der)
            let top = try outer.read(DERTag.sequence, "OCSPResponse")
            guard outer.isAtEnd else { throw DERError(description: "trailing bytes after the OCSP response") }
            var r = DERReader(der, contentsOf: top)
            let statusNode = try r.read(0x0A, "OCSPResponseStatus")
            guard statusNode.contents.count == 1, let status = ResponseStatus(rawValue: Int(der[statusNode.contents.lowerBound])) else {
                throw DERError(description: "unknown OCSPResponseStatus")
            }
            self.derEncoded = der
            self.status = status
            guard status == .successful else {
                guard r.isAtEnd else { throw DERError(description: "an unsuccessful OCSP response carries responseBytes") }
                (responderID, producedAt, responses, nonce, certificates, unprocessedCriticalExtension) = (nil, nil, [], nil, [], nil)
                (signatureAlgorithm, signatureScheme, tbsRange, signatureRange) = (nil, nil, 0..<0, 0..<0)
                return
            }
            var bytesField = DERReader(der, contentsOf: try r.read(DERTag.contextSpecific(0, constructed: true), "responseBytes"))
            guard r.isAtEnd else { throw DERError(description: "extra fields in OCSPResponse") }
            var rb = DERReader(der, contentsOf: try bytesField.read(DERTag.sequence, "ResponseBytes"))
            guard bytesField.isAtEnd else { throw DERError(description: "extra bytes after ResponseBytes") }
            let type = try rb.read(DERTag.objectIdentifier, "responseType").objectIdentifier(in: der)
            guard type == RevocationOID.ocspBasic else { throw DERError(description: "response type \(type) is not id-pkix-ocsp-basic") }
            let octets = try rb.read(DERTag.octetString, "response")
            guard rb.isAtEnd else { throw DERError(description: "extra fields in ResponseBytes") }

            // BasicOCSPResponse, inside the OCTET STRING.
            var inner = DERReader(der, contentsOf: octets)
            let basic = try inner.read(DERTag.sequence, "BasicOCSPResponse")
            guard inner.isAtEnd else { throw DERError(description: "trailing bytes after BasicOCSPResponse") }
            let signed = try SignedData(der, basic, tbsName: "ResponseData")
            let tbs = signed.tbs, algorithm = signed.algorithm
            var b = signed.rest
            var certificates: [Certificate] = []
            if let certs = try b.readOptional(DERTag.contextSpecific(0, constructed: true)) {
                var c = DERReader(der, contentsOf: certs)
                var list = DERReader(der, contentsOf: try c.read(DERTag.sequence, "certs"))
                guard c.isAtEnd else { throw DERError(description: "extra bytes after certs") }
                while !list.isAtEnd {
                    let node = try list.read(DERTag.sequence, "Certificate")
                    guard certificates.count < Self.maximumCertificates else {
                        throw DERError(description: "more than \(Self.maximumCertificates) certificates in an OCSP response")
                    }
                    do {
                        certificates.append(try Certificate(derEncoded: Array(der[node.encoded])))
                    } catch let error as TLSTrustError {
                        throw DERError(description: "a certificate in the response: \(error.message)")
                    }
                }
            }
            guard b.isAtEnd else { throw DERError(description: "extra fields in BasicOCSPResponse") }
            self.certificates = certificates
            self.tbsRange = tbs.encoded
            self.signatureRange = signed.signatureRange
            self.signatureScheme = SignatureScheme(algorithmIdentifier: der, node: algorithm)
            var a = DERReader(der, contentsOf: algorithm)
            self.signatureAlgorithm = SignatureAlgorithm(oid: try a.read(DERTag.objectIdentifier, "algorithm").objectIdentifier(in: der))

            // ResponseData.
            var t = DERReader(der, contentsOf: tbs)
            if let version = try t.readOptional(DERTag.contextSpecific(0, constructed: true)) {
                var v = DERReader(der, contentsOf: version)
                guard try v.read(DERTag.integer, "version").smallInteger(in: der) == 0, v.isAtEnd else {
                    throw DERError(description: "unknown OCSP ResponseData version")
                }
            }
            let responder = try t.readAny()
            switch responder.identifier {
            case DERTag.contextSpecific(1, constructed: true):
                var n = DERReader(der, contentsOf: responder)
                responderID = .byName(try DistinguishedName(bytes: der, node: try n.read(DERTag.sequence, "responder Name")))
                guard n.isAtEnd else { throw DERError(description: "extra bytes in ResponderID") }
            case DERTag.contextSpecific(2, constructed: true):
                var k = DERReader(der, contentsOf: responder)
                let hash = try k.read(DERTag.octetString, "KeyHash")
                guard k.isAtEnd, hash.contents.count == 20 else { throw DERError(description: "a KeyHash is 20 bytes of SHA-1") }
                responderID = .byKeyHash(Array(der[hash.contents]))
            default:
                throw DERError(description: "unknown ResponderID")
            }
            producedAt = try Self.generalizedTime(der, try t.readAny())
            var list = DERReader(der, contentsOf: try t.read(DERTag.sequence, "responses"))
            var responses: [SingleResponse] = []
            while !list.isAtEnd {
                guard responses.count < Self.maximumSingleResponses else {
                    throw DERError(description: "more than \(Self.maximumSingleResponses) responses in one OCSP response")
                }
                responses.append(try Self.singleResponse(der, try list.read(DERTag.sequence, "SingleResponse")))
            }
            self.responses = responses
            var nonce: [UInt8]?
            var unprocessed: String?
            if let explicit = try t.readOptional(DERTag.contextSpecific(1, constructed: true)) {
                var x = DERReader(der, contentsOf: explicit)
                try Self.forEachExtension(der, try x.read(DERTag.sequence, "responseExtensions")) { oid, critical, value in
                    if oid == RevocationOID.ocspNonce {
                        nonce = Array(der[value.contents])
                    } else if critical, unprocessed == nil {
                        unprocessed = oid
                    }
                }
                guard x.isAtEnd else { throw DERError(description: "extra bytes after responseExtensions") }
            }
            self.nonce = nonce
            self.unprocessedCriticalExtension = unprocessed
            guard t.isAtEnd else { throw DERError(description: "extra fields in ResponseData") }
        } catch let error as DERError {
            throw TLSTrustError(.malformedCertificate, "malformed OCSP response: \(error.description)")
        }
    }

    private static func singleResponse(_ der: [UInt8], _ node: DERNode) throws -> SingleResponse {
        var s = DERReader(der, contentsOf: node)
        let certID = try OCSPCertID(der, try s.read(DERTag.sequence, "CertID"))
        let statusNode = try s.readAny()
        let status: CertificateStatus
        switch statusNode.identifier {
        case DERTag.contextSpecific(0, constructed: false):
            guard statusNode.contents.isEmpty else { throw DERError(description: "good carries content") }
            status = .good
        case DERTag.contextSpecific(1, constructed: true):
            var info = DERReader(der, contentsOf: statusNode)
            let when = try generalizedTime(der, try info.readAny())
            var reason: RevocationReason?
            if let explicit = try info.readOptional(DERTag.contextSpecific(0, constructed: true)) {
                var e = DERReader(der, contentsOf: explicit)
                reason = try RevocationReason.read(der, try e.readAny())
                guard e.isAtEnd else { throw DERError(description: "extra bytes after revocationReason") }
            }
            guard info.isAtEnd else { throw DERError(description: "extra fields in RevokedInfo") }
            status = .revoked(at: when, reason: reason)
        case DERTag.contextSpecific(2, constructed: false):
            guard statusNode.contents.isEmpty else { throw DERError(description: "unknown carries content") }
            status = .unknown
        default:
            throw DERError(description: "unknown CertStatus")
        }
        let thisUpdate = try generalizedTime(der, try s.readAny())
        var nextUpdate: Date?
        if let explicit = try s.readOptional(DERTag.contextSpecific(0, constructed: true)) {
            var n = DERReader(der, contentsOf: explicit)
            nextUpdate = try generalizedTime(der, try n.readAny())
            guard n.isAtEnd else { throw DERError(description: "extra bytes after nextUpdate") }
        }
        var unprocessed: String?
        var sctList: [UInt8]?
        if let explicit = try s.readOptional(DERTag.contextSpecific(1, constructed: true)) {
            var x = DERReader(der, contentsOf: explicit)
            try forEachExtension(der, try x.read(DERTag.sequence, "singleExtensions")) { oid, critical, value in
                if oid == TransparencyOID.ocspSCTList { sctList = Array(der[value.contents]) }
                if critical, unprocessed == nil { unprocessed = oid }
            }
            guard x.isAtEnd else { throw DERError(description: "extra bytes after singleExtensions") }
        }
        guard s.isAtEnd else { throw DERError(description: "extra fields in SingleResponse") }
        return SingleResponse(certID: certID, status: status, thisUpdate: thisUpdate, nextUpdate: nextUpdate,
                              unprocessedCriticalExtension: unprocessed, sctListExtensionValue: sctList)
    }

    /// OCSP times are GeneralizedTime only (RFC 6960 §4.2.1).
    static func generalizedTime(_ der: [UInt8], _ node: DERNode) throws -> Date {
        guard node.identifier == DERTag.generalizedTime else { throw DERError(description: "an OCSP time is not a GeneralizedTime") }
        return try ValidityTime.decode(der, node)
    }

    /// Walks a non-empty `Extensions` (``DERExtensions/forEach(_:_:allowsEmpty:_:)``).
    static func forEachExtension(_ der: [UInt8], _ node: DERNode, _ body: (String, Bool, DERNode) throws -> Void) throws {
        try DERExtensions.forEach(der, node, allowsEmpty: false, body)
    }

    /// The response's signed bytes and signature, for the engine.
    var signedBytes: ArraySlice<UInt8> { derEncoded[tbsRange] }
    var signatureValue: ArraySlice<UInt8> { derEncoded[signatureRange] }

    public var description: String {
        guard status == .successful else { return "OCSP response: \(status)" }
        return "OCSP response from \(responderID.map { "\($0)" } ?? "?"), \(responses.count) answer(s): "
            + responses.map { "serial \($0.certID.serialNumber.hexString(separator: ":")) \($0.status)" }.joined(separator: "; ")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.derEncoded == rhs.derEncoded }
    public func hash(into hasher: inout Hasher) { hasher.combine(derEncoded) }
}

/// The CertID of OCSP (RFC 6960 §4.1.1): which certificate an answer is about, by its issuer's
/// name and key hashes and its serial number.
public struct OCSPCertID: Sendable, Hashable, CustomStringConvertible {
    /// The digests a CertID may use; SHA-1 is what most responders send.
    public enum HashAlgorithm: String, Sendable, Hashable, CaseIterable {
        case sha1, sha256, sha384, sha512

        var oid: String {
            switch self {
            case .sha1: RevocationOID.sha1
            case .sha256: AlgorithmOID.sha256
            case .sha384: AlgorithmOID.sha384
            case .sha512: AlgorithmOID.sha512
            }
        }

        func digest(_ bytes: [UInt8]) -> [UInt8] {
            switch self {
            case .sha1: SHA1.hash(bytes)
            case .sha256: SHA256.hash(bytes)
            case .sha384: SHA512.hash384(bytes)
            case .sha512: SHA512.hash(bytes)
            }
        }
    }

    /// The digest, or nil for one the core does not know (such an answer matches nothing).
    public let hashAlgorithm: HashAlgorithm?
    public let issuerNameHash: [UInt8]
    public let issuerKeyHash: [UInt8]
    /// The serial number's content octets, as ``Certificate/serialNumber``.
    public let serialNumber: [UInt8]

    /// The CertID of `certificate` issued by `issuer`.
    public init(certificate: Certificate, issuer: Certificate, hashAlgorithm: HashAlgorithm = .sha1) {
        self.hashAlgorithm = hashAlgorithm
        (issuerNameHash, issuerKeyHash) = issuer.ocspIssuerHashes(hashAlgorithm)
        serialNumber = certificate.serialNumber
    }

    init(_ der: [UInt8], _ node: DERNode) throws {
        var c = DERReader(der, contentsOf: node)
        var a = DERReader(der, contentsOf: try c.read(DERTag.sequence, "hashAlgorithm"))
        let oid = try a.read(DERTag.objectIdentifier, "hash OID").objectIdentifier(in: der)
        if !a.isAtEnd {
            guard try a.read(DERTag.null, "NULL parameters").contents.isEmpty, a.isAtEnd else {
                throw DERError(description: "CertID hash parameters are not NULL")
            }
        }
        hashAlgorithm = HashAlgorithm.allCases.first { $0.oid == oid }
        issuerNameHash = Array(der[try c.read(DERTag.octetString, "issuerNameHash").contents])
        issuerKeyHash = Array(der[try c.read(DERTag.octetString, "issuerKeyHash").contents])
        let serial = try c.read(DERTag.integer, "serialNumber")
        guard !serial.contents.isEmpty else { throw DERError(description: "empty serial number") }
        serialNumber = Array(der[serial.contents])
        guard c.isAtEnd else { throw DERError(description: "extra fields in CertID") }
    }

    /// Whether this CertID names `certificate` as issued by `issuer`.
    public func identifies(_ certificate: Certificate, issuedBy issuer: Certificate) -> Bool {
        guard let hashAlgorithm, IntegerValue.minimal(serialNumber) == IntegerValue.minimal(certificate.serialNumber) else { return false }
        let (name, key) = issuer.ocspIssuerHashes(hashAlgorithm)
        return issuerNameHash == name && issuerKeyHash == key
    }

    /// The DER `CertID` (for requests).
    var derEncoded: [UInt8] {
        DERWriter.sequence([
            DERWriter.sequence([DERWriter.element(DERTag.objectIdentifier, KnownOID.encode(hashAlgorithm?.oid ?? RevocationOID.sha1)),
                                DERWriter.element(DERTag.null, [])]),
            DERWriter.element(DERTag.octetString, issuerNameHash),
            DERWriter.element(DERTag.octetString, issuerKeyHash),
            DERWriter.element(DERTag.integer, serialNumber),
        ])
    }

    public var description: String {
        "CertID(\(hashAlgorithm?.rawValue ?? "unknown hash"), serial \(serialNumber.hexString(separator: ":")))"
    }
}
