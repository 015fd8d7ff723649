/// The object identifiers of revocation: OCSP (RFC 6960), CRL and CRL-entry extensions (RFC 5280
/// §5.2, §5.3), and the certificate extensions that say where to ask (§4.2.1.13, §4.2.2.1).
/// Named once; a literal OID elsewhere in the revocation code is a bug.
enum RevocationOID {
    /// id-pkix-ocsp-basic: the only OCSP response type understood.
    static let ocspBasic = "1.3.6.1.5.5.7.48.1.1"
    /// id-pkix-ocsp-nonce (RFC 8954).
    static let ocspNonce = "1.3.6.1.5.5.7.48.1.2"
    /// id-pkix-ocsp-nocheck: a delegated responder's own status is not checked (RFC 6960 §4.2.2.2.1).
    static let ocspNoCheck = "1.3.6.1.5.5.7.48.1.5"
    /// id-ad-ocsp: an authorityInfoAccess method naming an OCSP responder.
    static let accessOCSP = "1.3.6.1.5.5.7.48.1"
    /// id-ad-caIssuers.
    static let accessCAIssuers = "1.3.6.1.5.5.7.48.2"
    /// id-kp-OCSPSigning: the extended key usage a delegated responder must carry.
    static let ocspSigning = "1.3.6.1.5.5.7.3.9"
    /// id-sha1 (OIW), as CertIDs name it.
    static let sha1 = "1.3.14.3.2.26"

    // CRL extensions (RFC 5280 §5.2).
    static let crlNumber = "2.5.29.20"
    static let deltaCRLIndicator = "2.5.29.27"
    static let issuingDistributionPoint = "2.5.29.28"
    static let freshestCRL = "2.5.29.46"
    // CRL entry extensions (§5.3).
    static let reasonCode = "2.5.29.21"
    static let holdInstructionCode = "2.5.29.23"
    static let invalidityDate = "2.5.29.24"
    static let certificateIssuer = "2.5.29.29"
    /// cRLDistributionPoints, a certificate extension (§4.2.1.13).
    static let crlDistributionPoints = "2.5.29.31"
}

/// Why a certificate was revoked (RFC 5280 §5.3.1 CRLReason; OCSP uses the same values).
public enum RevocationReason: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case unspecified = 0, keyCompromise = 1, cACompromise = 2, affiliationChanged = 3, superseded = 4
    case cessationOfOperation = 5, certificateHold = 6, removeFromCRL = 8, privilegeWithdrawn = 9, aACompromise = 10

    public var description: String {
        switch self {
        case .unspecified: "unspecified"
        case .keyCompromise: "keyCompromise"
        case .cACompromise: "cACompromise"
        case .affiliationChanged: "affiliationChanged"
        case .superseded: "superseded"
        case .cessationOfOperation: "cessationOfOperation"
        case .certificateHold: "certificateHold"
        case .removeFromCRL: "removeFromCRL"
        case .privilegeWithdrawn: "privilegeWithdrawn"
        case .aACompromise: "aACompromise"
        }
    }

    /// Reads `CRLReason ::= ENUMERATED`; an unassigned value (7, or above 10) is malformed.
    static func read(_ der: [UInt8], _ node: DERNode) throws -> RevocationReason {
        guard node.identifier == 0x0A, node.contents.count == 1, let reason = RevocationReason(rawValue: Int(der[node.contents.lowerBound]))
        else { throw DERError(description: "malformed or unassigned CRLReason") }
        return reason
    }
}
