import Foundation

extension TestPKI {
    /// Mints `profile` under `issuer` (self-signed when nil), then replaces the one occurrence of
    /// `placeholder` in its TBSCertificate with `replacement` (the same length, so every DER length
    /// stays right) and signs the result again with the issuer's key.
    ///
    /// For bytes no profile field spells: mint a placeholder value, then swap in the hostile bytes,
    /// tag included, anywhere in the TBSCertificate (a subject value that breaks its string type,
    /// a VisibleString in a Name, a changed tag inside an extension).
    ///
    /// - Returns: the certificate's DER; the core's parser may rightly refuse it.
    public static func mintDER(
        _ profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?,
        replacingInTBS placeholder: [UInt8], with replacement: [UInt8]
    ) throws -> [UInt8] {
        precondition(placeholder.count == replacement.count, "the replacement must keep the length")
        let der = try mintDER(profile, subjectKey: subjectKey, issuer: issuer)
        // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }
        let outer = try DERElement(der, at: 0)
        let tbs = try DERElement(der, at: outer.contentStart)
        let algorithm = try DERElement(der, at: tbs.end)
        var tbsBytes = Array(der[tbs.start..<tbs.end])
        let hits = (0...(tbsBytes.count - placeholder.count)).filter { tbsBytes[$0..<($0 + placeholder.count)].elementsEqual(placeholder) }
        guard hits.count == 1, let at = hits.first else {
            throw TestPKIError(operation: "the placeholder occurs \(hits.count) times in the TBSCertificate, not once")
        }
        tbsBytes.replaceSubrange(at..<(at + placeholder.count), with: replacement)
        let signer = issuer?.privateKey ?? subjectKey
        let signature = try signer.sign(tbsBytes, with: TestSignatureAlgorithm(issuing: signer.keyType, digest: profile.signatureDigest))
        return DER.sequence([tbsBytes, Array(der[algorithm.start..<algorithm.end]), DER.bitString(signature)])
    }
}
