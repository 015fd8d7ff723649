/// An OCSP request for one certificate (RFC 6960 §4.1), as the engine sends it to a responder
/// when fetching is allowed: unsigned, one CertID with SHA-1 (what RFC 5019 responders expect),
/// and a nonce (RFC 8954) that a response must echo if it carries one.
public struct OCSPRequest: Sendable, Hashable {
    public let certID: OCSPCertID
    /// 16 random bytes, or empty for no nonce.
    public let nonce: [UInt8]

    public init(certificate: Certificate, issuer: Certificate, nonce: [UInt8] = OCSPRequest.randomNonce()) {
        certID = OCSPCertID(certificate: certificate, issuer: issuer, hashAlgorithm: .sha1)
        self.nonce = nonce
    }

    /// 16 bytes from the system's random generator.
    public static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The DER `OCSPRequest`.
    public var derEncoded: [UInt8] {
        var tbs = [DERWriter.sequence([DERWriter.sequence([certID.derEncoded])])]
        if !nonce.isEmpty {
            let nonceExtension = DERWriter.sequence([
                DERWriter.element(DERTag.objectIdentifier, KnownOID.encode(RevocationOID.ocspNonce)),
                DERWriter.element(DERTag.octetString, DERWriter.element(DERTag.octetString, nonce)),
            ])
            tbs.append(DERWriter.element(DERTag.contextSpecific(2, constructed: true), DERWriter.sequence([nonceExtension])))
        }
        return DERWriter.sequence([DERWriter.sequence(tbs)])
    }
}
