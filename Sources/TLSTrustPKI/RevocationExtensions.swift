/// Certificate extensions that point at revocation services, and the profile of a delegated OCSP
/// responder: what revocation tests put in the certificates they mint.
extension RawExtension.OID {
    /// authorityInfoAccess (RFC 5280 §4.2.2.1).
    public static let authorityInfoAccess = "1.3.6.1.5.5.7.1.1"
    /// cRLDistributionPoints (RFC 5280 §4.2.1.13).
    public static let crlDistributionPoints = "2.5.29.31"
    /// id-pkix-ocsp-nocheck (RFC 6960 §4.2.2.2.1): "do not check this responder's revocation".
    public static let ocspNoCheck = "1.3.6.1.5.5.7.48.1.5"
    /// id-ad-ocsp, the access method of an OCSP responder in authorityInfoAccess.
    public static let accessMethodOCSP = "1.3.6.1.5.5.7.48.1"
    /// id-ad-caIssuers, the access method of the issuer's certificate in authorityInfoAccess.
    public static let accessMethodCAIssuers = "1.3.6.1.5.5.7.48.2"
}

extension RawExtension {
    /// authorityInfoAccess listing OCSP responder URLs, then caIssuers URLs, each as a
    /// uniformResourceIdentifier written byte for byte (any scheme, so `https://` or `ldap://`
    /// responders can be minted for the fetcher to refuse).
    public static func authorityInformationAccess(ocspURLs: [String], caIssuerURLs: [String] = [], critical: Bool = false) -> RawExtension {
        let descriptions = ocspURLs.map { (OID.accessMethodOCSP, $0) } + caIssuerURLs.map { (OID.accessMethodCAIssuers, $0) }
        return RawExtension(oid: OID.authorityInfoAccess, isCritical: critical, valueDER: DER.sequence(descriptions.map {
            DER.sequence([DER.objectIdentifier($0.0), TestGeneralName.uri($0.1).der])
        }))
    }

    /// cRLDistributionPoints with one DistributionPoint per URL, each a fullName holding that URI.
    public static func crlDistributionPoints(_ urls: [String], critical: Bool = false) -> RawExtension {
        RawExtension(oid: OID.crlDistributionPoints, isCritical: critical, valueDER: DER.sequence(urls.map { url in
            // DistributionPoint { distributionPoint [0] { fullName [0] GeneralNames } }
            DER.sequence([DER.contextSpecific(0, constructed: true, DER.contextSpecific(0, constructed: true, TestGeneralName.uri(url).der))])
        }))
    }

    /// id-pkix-ocsp-nocheck with its NULL value (non-critical, as RFC 6960 says).
    public static let ocspNoCheck = RawExtension(oid: OID.ocspNoCheck, isCritical: false, valueDER: DER.null)
}

extension CertificateProfile {
    /// A delegated OCSP responder (RFC 6960 §4.2.2.2): issued by the CA whose certificates it
    /// answers for, `CA:FALSE`, keyUsage digitalSignature, extendedKeyUsage id-kp-OCSPSigning.
    ///
    /// - Parameters:
    ///   - commonName: the responder certificate's subject CN.
    ///   - keyAlgorithm: the responder's key.
    ///   - noCheck: writes id-pkix-ocsp-nocheck (the usual choice: a responder's own status is not
    ///     asked for); false leaves the client to check the responder's revocation.
    ///   - extendedKeyUsage: the EKU to write; pass `[.serverAuth]` or nil (none) for a responder
    ///     certificate a client must not accept.
    public static func ocspResponder(
        commonName: String = "OCSP Responder", keyAlgorithm: TestKeyAlgorithm = .ecdsaP256,
        noCheck: Bool = true, extendedKeyUsage: [ExtendedKeyUsage]? = [.ocspSigning]
    ) -> CertificateProfile {
        var profile = CertificateProfile(commonName: commonName, keyAlgorithm: keyAlgorithm, isCA: false,
                                         keyUsage: [.digitalSignature], extendedKeyUsage: extendedKeyUsage)
        if noCheck { profile.extensions.append(.ocspNoCheck) }
        return profile
    }

    /// This profile with an authorityInfoAccess naming `ocspURLs` and/or cRLDistributionPoints
    /// naming `crlURLs` (each left out when its list is empty).
    public func withRevocationPointers(ocspURLs: [String] = [], crlURLs: [String] = []) -> CertificateProfile {
        var profile = self
        if !ocspURLs.isEmpty { profile.extensions.append(.authorityInformationAccess(ocspURLs: ocspURLs)) }
        if !crlURLs.isEmpty { profile.extensions.append(.crlDistributionPoints(crlURLs)) }
        return profile
    }
}
