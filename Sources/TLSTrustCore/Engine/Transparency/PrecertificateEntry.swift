/// The signed entry of an embedded SCT (RFC 6962 §3.2 `PreCert`): the certificate's
/// TBSCertificate with the SCT list extension removed and the rest re-encoded, as the log saw the
/// precertificate's TBSCertificate with its poison extension removed.
///
/// The precertificate-signing-certificate case needs nothing more here: a log rewrites such a
/// precertificate's issuer and authority key identifier to those of the final issuer before
/// signing (§3.1), which is what the final certificate carries.
enum PrecertificateEntry {
    /// The re-encoded TBSCertificate without the SCT list extension.
    ///
    /// - Throws: `DERError` when the certificate has no such extension or its DER cannot be walked.
    static func tbsWithoutSCTList(of certificate: Certificate) throws -> [UInt8] {
        let der = certificate.derEncoded
        var outer = DERReader(der)
        var cert = DERReader(der, contentsOf: try outer.read(DERTag.sequence, "Certificate"))
        let tbs = try cert.read(DERTag.sequence, "TBSCertificate")
        var fields = DERReader(der, contentsOf: tbs)
        let sctOID = KnownOID.encode(TransparencyOID.embeddedSCTList)
        var contents: [UInt8] = []
        var removed = 0
        while !fields.isAtEnd {
            let field = try fields.readAny()
            guard field.identifier == DERTag.contextSpecific(3, constructed: true) else {
                contents += der[field.encoded]
                continue
            }
            var explicit = DERReader(der, contentsOf: field)
            var list = DERReader(der, contentsOf: try explicit.read(DERTag.sequence, "Extensions"))
            var kept: [UInt8] = []
            while !list.isAtEnd {
                let ext = try list.read(DERTag.sequence, "Extension")
                var e = DERReader(der, contentsOf: ext)
                let oid = try e.read(DERTag.objectIdentifier, "extnID")
                if sameBytes(der[oid.contents], sctOID[...]) {
                    removed += 1
                } else {
                    kept += der[ext.encoded]
                }
            }
            // An Extensions field left empty is omitted, as a log encodes a TBSCertificate
            // whose only extension was the poison.
            if !kept.isEmpty {
                contents += Self.element(DERTag.contextSpecific(3, constructed: true), Self.element(DERTag.sequence, kept))
            }
        }
        guard removed == 1 else {
            throw DERError(description: removed == 0 ? "no SCT list extension to remove" : "\(removed) SCT list extensions")
        }
        return Self.element(DERTag.sequence, contents)
    }

    /// One DER element: identifier, the minimal length, contents.
    static func element(_ identifier: UInt8, _ contents: [UInt8]) -> [UInt8] {
        let n = contents.count
        var header: [UInt8] = [identifier]
        if n < 0x80 {
            header.append(UInt8(n))
        } else {
            var lengthBytes: [UInt8] = []
            var rest = n
            while rest > 0 {
                lengthBytes.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            header.append(0x80 | UInt8(lengthBytes.count))
            header += lengthBytes
        }
        return header + contents
    }
}
