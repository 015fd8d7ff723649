/// The one reader of X.509 `Extensions` (RFC 5280 §4.1, §5.1, RFC 6960 §4.2.1): certificates,
/// CRLs, CRL entries and OCSP responses all walk their extensions here, with the same strictness —
/// an explicit `critical FALSE` is not DER, an extension may appear once, nothing may follow
/// `extnValue`.
enum DERExtensions {
    /// Calls `body` with each extension's OID, criticality and `extnValue` OCTET STRING.
    ///
    /// - Parameter allowsEmpty: whether an empty SEQUENCE is read (certificates have always been
    ///   read so); false refuses it, as `SIZE (1..MAX)` says.
    static func forEach(_ der: [UInt8], _ node: DERNode, allowsEmpty: Bool,
                        _ body: (_ oid: String, _ critical: Bool, _ value: DERNode) throws -> Void) throws {
        try forEach(der, node, allowsEmpty: allowsEmpty) { oid, _, critical, value in try body(oid, critical, value) }
    }

    /// `forEach` that also hands the extnID's node to `body`, for readers that dispatch on the
    /// encoding (``ExtensionOID/idCENumber(_:_:)``) rather than on the dotted text.
    static func forEach(_ der: [UInt8], _ node: DERNode, allowsEmpty: Bool,
                        _ body: (_ oid: String, _ oidNode: DERNode, _ critical: Bool, _ value: DERNode) throws -> Void) throws {
        var r = DERReader(der, contentsOf: node)
        // The extnIDs read so far: id-ce ones (2.5.29.n, nearly all of them) as bits, the rest by
        // their encoding in a list that is only allocated when one appears. A scan of a handful
        // costs less than hashing each OID's text into a set.
        var seenIDCE: (UInt64, UInt64) = (0, 0)
        var seen: [Range<Int>] = []
        guard allowsEmpty || !r.isAtEnd else { throw DERError(description: "empty Extensions") }
        while !r.isAtEnd {
            var x = DERReader(der, contentsOf: try r.read(DERTag.sequence, "Extension"))
            let oidNode = try x.read(DERTag.objectIdentifier, "extnID")
            let oid = try oidNode.objectIdentifier(in: der)
            var critical = false
            if let c = try x.readOptional(DERTag.boolean) {
                critical = try c.boolean(in: der)
                guard critical else { throw DERError(description: "critical=FALSE must be omitted in DER") }
            }
            let value = try x.read(DERTag.octetString, "extnValue")
            guard x.isAtEnd else { throw DERError(description: "extra fields in Extension") }
            let duplicate: Bool
            if let number = ExtensionOID.idCENumber(der, oidNode) {
                let bit: UInt64 = 1 << (number & 63)
                duplicate = (number < 64 ? seenIDCE.0 : seenIDCE.1) & bit != 0
                if number < 64 { seenIDCE.0 |= bit } else { seenIDCE.1 |= bit }
            } else {
                duplicate = seen.contains(where: { sameBytes(der[$0], der[oidNode.contents]) })
                seen.append(oidNode.contents)
            }
            guard !duplicate else { throw DERError(description: "duplicate extension \(oid)") }
            try body(oid, oidNode, critical, value)
        }
    }
}
