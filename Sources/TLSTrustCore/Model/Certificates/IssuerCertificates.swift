/// What a caIssuers URL serves (RFC 5280 §4.2.2.1): "either a single DER encoded certificate
/// (`application/pkix-cert`) or a collection of certificates in a BER or DER encoded 'certs-only'
/// CMS message (`application/pkcs7-mime`)".
///
/// Those two forms are read; anything else — PEM, a CMS message with signers or content, a
/// collection holding CRLs or more than ``maximumCertificates`` certificates — is refused with a
/// `TLSTrustError` that says what it was, because the bytes come from a server a certificate
/// named, and a server may be hostile. The certificates read are only candidates: the engine
/// treats them as untrusted intermediates, exactly like those the peer presented.
public enum IssuerCertificates {
    /// The most certificates one caIssuers answer may hold (real ones hold one or two).
    public static let maximumCertificates = 8

    private static let signedDataOID = "1.2.840.113549.1.7.2"
    private static let dataOID = "1.2.840.113549.1.7.1"

    /// The certificates in `bytes`, a DER certificate or a certs-only PKCS#7 SignedData.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` for anything that is neither.
    public static func parse(_ bytes: [UInt8]) throws -> [Certificate] {
        guard let first = bytes.first else {
            throw TLSTrustError(.malformedCertificate, "the caIssuers answer is empty")
        }
        guard first == DERTag.sequence else {
            let what = bytes.starts(with: Array("-----BEGIN".utf8)) ? "PEM text" : "not DER"
            throw TLSTrustError(.malformedCertificate,
                                "the caIssuers answer is \(what): only a DER certificate (application/pkix-cert) or a certs-only PKCS#7 bundle (application/pkcs7-mime) is read")
        }
        do {
            if let certificates = try certsOnly(bytes) { return certificates }
        } catch let error as DERError {
            throw TLSTrustError(.malformedCertificate, "the caIssuers answer is not a usable certs-only PKCS#7 bundle: \(error.description)")
        }
        do {
            return [try Certificate(derEncoded: bytes)]
        } catch let error as TLSTrustError {
            throw TLSTrustError(.malformedCertificate, "the caIssuers answer is not a DER certificate: \(error.message)")
        }
    }

    /// The certificates of a ContentInfo holding a certs-only SignedData (RFC 5652 §3, §5.1:
    /// no signers, no content); nil when `bytes` is not a ContentInfo at all.
    private static func certsOnly(_ bytes: [UInt8]) throws -> [Certificate]? {
        var outer = DERReader(bytes)
        let contentInfo = try outer.read(DERTag.sequence, "ContentInfo")
        guard outer.isAtEnd else { throw DERError(description: "trailing data after the ContentInfo") }
        var info = DERReader(bytes, contentsOf: contentInfo)
        // A certificate begins with a SEQUENCE (TBSCertificate); a ContentInfo with its OID.
        guard info.peekIdentifier == DERTag.objectIdentifier else { return nil }
        let type = try info.read(DERTag.objectIdentifier, "contentType").objectIdentifier(in: bytes)
        guard type == signedDataOID else {
            throw DERError(description: "its content type is \(type), not signedData")
        }
        let explicit = try info.read(DERTag.contextSpecific(0, constructed: true), "[0] content")
        guard info.isAtEnd else { throw DERError(description: "trailing data in the ContentInfo") }
        var wrapper = DERReader(bytes, contentsOf: explicit)
        var signed = DERReader(bytes, contentsOf: try wrapper.read(DERTag.sequence, "SignedData"))
        guard wrapper.isAtEnd else { throw DERError(description: "trailing data after the SignedData") }
        _ = try signed.read(DERTag.integer, "version")
        _ = try signed.read(DERTag.set, "digestAlgorithms")
        var encapsulated = DERReader(bytes, contentsOf: try signed.read(DERTag.sequence, "encapContentInfo"))
        let innerType = try encapsulated.read(DERTag.objectIdentifier, "eContentType").objectIdentifier(in: bytes)
        guard innerType == dataOID, encapsulated.isAtEnd else {
            throw DERError(description: "it encapsulates content (\(innerType)): a certs-only bundle has none")
        }
        guard let set = try signed.readOptional(DERTag.contextSpecific(0, constructed: true)) else {
            throw DERError(description: "it holds no certificates")
        }
        if try signed.readOptional(DERTag.contextSpecific(1, constructed: true)) != nil {
            throw DERError(description: "it holds CRLs: a certs-only bundle holds certificates alone")
        }
        let signerInfos = DERReader(bytes, contentsOf: try signed.read(DERTag.set, "signerInfos"))
        guard signerInfos.isAtEnd else { throw DERError(description: "it has signers: a certs-only bundle has none") }
        guard signed.isAtEnd else { throw DERError(description: "trailing data in the SignedData") }

        var reader = DERReader(bytes, contentsOf: set)
        var certificates: [Certificate] = []
        while !reader.isAtEnd {
            let node = try reader.readAny()
            guard node.identifier == DERTag.sequence else {
                throw DERError(description: "a CertificateChoices other than a certificate (tag 0x\(String(node.identifier, radix: 16)))")
            }
            guard certificates.count < maximumCertificates else {
                throw DERError(description: "it holds more than \(maximumCertificates) certificates")
            }
            do {
                certificates.append(try Certificate(derEncoded: Array(bytes[node.encoded])))
            } catch let error as TLSTrustError {
                throw DERError(description: "certificate \(certificates.count + 1): \(error.message)")
            }
        }
        guard !certificates.isEmpty else { throw DERError(description: "it holds no certificates") }
        return certificates
    }
}
