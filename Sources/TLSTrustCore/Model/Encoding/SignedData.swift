/// The shape every signed X.509 structure shares — a certificate, a CRL, a BasicOCSPResponse:
/// `SEQUENCE { tbs SEQUENCE, signatureAlgorithm AlgorithmIdentifier, signature BIT STRING, … }`.
/// Read here once, with the same strictness for all three: the signature is a whole number of
/// bytes; what may follow it (an OCSP response's certificates) is left to the caller.
struct SignedData {
    /// The signed part, header included (what the signer signed).
    let tbs: DERNode
    let algorithm: DERNode
    /// The signature's bytes, without the unused-bits octet.
    let signatureRange: Range<Int>
    /// Positioned after the signature.
    var rest: DERReader

    /// Reads the three fields from the contents of `node`.
    init(_ der: [UInt8], _ node: DERNode, tbsName: String) throws {
        var fields = DERReader(der, contentsOf: node)
        tbs = try fields.read(DERTag.sequence, tbsName)
        algorithm = try fields.read(DERTag.sequence, "signatureAlgorithm")
        let signature = try fields.read(DERTag.bitString, "signatureValue").bitStringBytes(in: der)
        guard signature.unusedBits == 0 else { throw DERError(description: "signatureValue is not a whole number of bytes") }
        signatureRange = signature.range
        rest = fields
    }

    /// Reads `der` as exactly one signed structure and nothing after its signature.
    static func whole(_ der: [UInt8], name: String, tbsName: String) throws -> SignedData {
        var outer = DERReader(der)
        let node = try outer.read(DERTag.sequence, name)
        guard outer.isAtEnd else { throw DERError(description: "trailing bytes after the \(name)") }
        let signed = try SignedData(der, node, tbsName: tbsName)
        guard signed.rest.isAtEnd else { throw DERError(description: "extra fields after signatureValue") }
        return signed
    }
}
