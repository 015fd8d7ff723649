internal import COpenSSL
import Foundation

extension TestPKI {
    /// Mints `profile` under `issuer` (self-signed when nil), then replaces the one occurrence of
    /// `placeholder` in its TBSCertificate with `replacement` (the same length, so every DER length
    /// stays right) and signs the result again with the issuer's key.
    ///
    /// For certificates OpenSSL will not build but an attacker can: a subject value that breaks its
    /// string type (invalid UTF-8, an odd-length BMPString), a string type OpenSSL will not put in
    /// a Name (VisibleString). Mint a placeholder value, then swap in the hostile bytes, tag included.
    ///
    /// - Returns: the certificate's DER; the core's parser may rightly refuse it.
    public static func mintDER(
        _ profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?,
        replacingInTBS placeholder: [UInt8], with replacement: [UInt8]
    ) throws -> [UInt8] {
        precondition(placeholder.count == replacement.count, "the replacement must keep the length")
        let der = try mintDER(profile, subjectKey: subjectKey, issuer: issuer)
        // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }
        let outer = try TLV(der, at: 0)
        var tbs = try TLV(der, at: outer.contentStart)
        let algorithm = try TLV(der, at: tbs.end)
        var tbsBytes = Array(der[tbs.start..<tbs.end])
        let hits = (0...(tbsBytes.count - placeholder.count)).filter { tbsBytes[$0..<($0 + placeholder.count)].elementsEqual(placeholder) }
        guard hits.count == 1, let at = hits.first else {
            throw TestPKIError(operation: "the placeholder occurs \(hits.count) times in the TBSCertificate, not once")
        }
        tbsBytes.replaceSubrange(at..<(at + placeholder.count), with: replacement)
        tbs = try TLV(tbsBytes, at: 0)
        let signer = issuer?.privateKey ?? subjectKey
        let signature = try sign(tbsBytes, with: signer, digest: signer.keyType.usesSeparateDigest ? profile.signatureDigest : nil)
        return DER.sequence([tbsBytes, Array(der[algorithm.start..<algorithm.end]), DER.bitString(signature)])
    }

    private static func sign(_ message: [UInt8], with key: TestPrivateKey, digest: SignatureDigest?) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw TestPKIError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        try check(EVP_DigestSignInit(context, nil, digest.map(X509Builder.messageDigest) ?? nil, nil, key.pkey), "EVP_DigestSignInit",
                  positive: true)
        var length = 0
        try check(EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign", positive: true)
        var signature = [UInt8](repeating: 0, count: length)
        try check(EVP_DigestSign(context, &signature, &length, message, message.count), "EVP_DigestSign", positive: true)
        return Array(signature.prefix(length))
    }

    /// One DER element's extent: where it starts, where its contents start, where it ends.
    private struct TLV {
        let start: Int, contentStart: Int, end: Int
        init(_ bytes: [UInt8], at start: Int) throws {
            guard start + 2 <= bytes.count else { throw TestPKIError(operation: "truncated DER") }
            var index = start + 1
            var length = Int(bytes[index])
            index += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count <= 4, index + count <= bytes.count else { throw TestPKIError(operation: "bad DER length") }
                length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
                index += count
            }
            guard index + length <= bytes.count else { throw TestPKIError(operation: "truncated DER") }
            self.start = start
            contentStart = index
            end = index + length
        }
    }
}
