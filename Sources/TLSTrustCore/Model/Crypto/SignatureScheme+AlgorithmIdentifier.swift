extension SignatureScheme {
    /// Reads a signature AlgorithmIdentifier into the scheme of the entry of
    /// `AcceptedSignatureAlgorithm/all` whose OID and exact parameters it carries; anything else
    /// gives nil, which the engine reports as a forbidden algorithm.
    init?(algorithmIdentifier der: [UInt8], node: DERNode) {
        var r = DERReader(der, contentsOf: node)
        guard let oidNode = try? r.read(DERTag.objectIdentifier, "algorithm"),
              let oid = try? oidNode.objectIdentifier(in: der) else { return nil }
        let params: DERNode? = r.isAtEnd ? nil : (try? r.readAny())
        guard r.isAtEnd else { return nil }
        let isNull = params.map { $0.identifier == DERTag.null && $0.contents.isEmpty } ?? false
        var pss: DigestAlgorithm??  // read once, on the first PSS entry
        for entry in AcceptedSignatureAlgorithm.all where entry.oid == oid {
            switch entry.parameters {
            case .absent:
                if params == nil { self = entry.scheme; return }
            case .nullOrAbsent:
                if params == nil || isNull { self = entry.scheme; return }
            case .rsassaPSS(let digest):
                if pss == nil { pss = params.flatMap { Self.pssDigest(der, $0) } }
                if pss == digest { self = entry.scheme; return }
            }
        }
        return nil
    }

    /// Whether two AlgorithmIdentifiers name the same RSA PKCS#1 v1.5 algorithm and differ only in
    /// absent versus NULL parameters — the one inner/outer mismatch a certificate may carry and
    /// still be read (as Apple's Security framework reads it). Every other difference is an error.
    static func areEquivalentRSAIdentifiers(_ der: [UInt8], _ a: DERNode, _ b: DERNode) -> Bool {
        func parts(_ node: DERNode) -> (oid: String, paramsAbsentOrNull: Bool)? {
            var r = DERReader(der, contentsOf: node)
            guard let oid = try? r.read(DERTag.objectIdentifier, "algorithm").objectIdentifier(in: der) else { return nil }
            if r.isAtEnd { return (oid, true) }
            guard let p = try? r.readAny(), r.isAtEnd else { return nil }
            return (oid, p.identifier == DERTag.null && p.contents.isEmpty)
        }
        guard let x = parts(a), let y = parts(b) else { return false }
        return x.oid == y.oid && AlgorithmOID.rsaPKCS1Signatures.contains(x.oid) && x.paramsAbsentOrNull && y.paramsAbsentOrNull
    }

    private static let digestOIDs: [String: DigestAlgorithm] = [
        AlgorithmOID.sha256: .sha256, AlgorithmOID.sha384: .sha384, AlgorithmOID.sha512: .sha512,
    ]

    /// `HashAlgorithm ::= AlgorithmIdentifier` with NULL or absent parameters.
    private static func digest(_ der: [UInt8], _ node: DERNode) -> DigestAlgorithm? {
        guard node.identifier == DERTag.sequence else { return nil }
        var r = DERReader(der, contentsOf: node)
        guard let oid = try? r.read(DERTag.objectIdentifier, "hash").objectIdentifier(in: der) else { return nil }
        if !r.isAtEnd {
            guard let p = try? r.readAny(), p.identifier == DERTag.null, p.contents.isEmpty, r.isAtEnd else { return nil }
        }
        return digestOIDs[oid]
    }

    /// RSASSA-PSS-params (RFC 4055 §3.1), restricted to explicit, self-consistent values.
    private static func pssDigest(_ der: [UInt8], _ node: DERNode) -> DigestAlgorithm? {
        guard node.identifier == DERTag.sequence else { return nil }
        var r = DERReader(der, contentsOf: node)
        guard let hashField = try? r.read(DERTag.contextSpecific(0, constructed: true), "hashAlgorithm"),
              let mgfField = try? r.read(DERTag.contextSpecific(1, constructed: true), "maskGenAlgorithm"),
              let saltField = try? r.read(DERTag.contextSpecific(2, constructed: true), "saltLength") else { return nil }
        if !r.isAtEnd {
            // trailerField [3] must be 1, and DER would omit the default; present means malformed.
            return nil
        }
        var h = DERReader(der, contentsOf: hashField)
        guard let hashNode = try? h.readAny(), h.isAtEnd, let digest = digest(der, hashNode) else { return nil }
        var m = DERReader(der, contentsOf: mgfField)
        guard let mgf = try? m.read(DERTag.sequence, "MGF"), m.isAtEnd else { return nil }
        var mf = DERReader(der, contentsOf: mgf)
        guard (try? mf.read(DERTag.objectIdentifier, "mgf").objectIdentifier(in: der)) == AlgorithmOID.mgf1,
              let mgfHash = try? mf.readAny(), mf.isAtEnd, self.digest(der, mgfHash) == digest else { return nil }
        var s = DERReader(der, contentsOf: saltField)
        guard let salt = try? s.read(DERTag.integer, "salt").smallInteger(in: der), s.isAtEnd, salt == digest.length else { return nil }
        return digest
    }
}
