extension SignatureScheme {
    /// Reads a signature AlgorithmIdentifier, accepting only the exact encodings the web PKI uses
    /// (RFC 4055, RFC 5758, RFC 8410, CA/B Forum BR §7.1.3.2); anything else gives nil, which the
    /// engine reports as a forbidden algorithm.
    ///
    /// - RSA PKCS#1 v1.5: parameters NULL or absent (RFC 4055 asks for NULL; absent parameters are
    ///   common in older certificates and accepted by Apple, Go and BoringSSL — harmless, as the
    ///   OID alone fixes the algorithm).
    /// - RSA-PSS: hash SHA-256/384/512, MGF1 with the same hash, salt length equal to the hash
    ///   length, trailer field 1.
    /// - ECDSA and Ed25519: parameters absent.
    init?(algorithmIdentifier der: [UInt8], node: DERNode) {
        var r = DERReader(der, contentsOf: node)
        guard let oidNode = try? r.read(DERTag.objectIdentifier, "algorithm"),
              let oid = try? oidNode.objectIdentifier(in: der) else { return nil }
        let params: DERNode? = r.isAtEnd ? nil : (try? r.readAny())
        guard r.isAtEnd else { return nil }
        func isNull(_ n: DERNode?) -> Bool { n.map { $0.identifier == DERTag.null && $0.contents.isEmpty } ?? false }
        switch oid {
        case "1.2.840.113549.1.1.11": guard params == nil || isNull(params) else { return nil }; self = .rsaPKCS1v15(.sha256)
        case "1.2.840.113549.1.1.12": guard params == nil || isNull(params) else { return nil }; self = .rsaPKCS1v15(.sha384)
        case "1.2.840.113549.1.1.13": guard params == nil || isNull(params) else { return nil }; self = .rsaPKCS1v15(.sha512)
        case "1.2.840.10045.4.3.2": guard params == nil else { return nil }; self = .ecdsa(.sha256)
        case "1.2.840.10045.4.3.3": guard params == nil else { return nil }; self = .ecdsa(.sha384)
        case "1.2.840.10045.4.3.4": guard params == nil else { return nil }; self = .ecdsa(.sha512)
        case "1.3.101.112": guard params == nil else { return nil }; self = .ed25519
        case "1.2.840.113549.1.1.10":
            guard let params, let digest = Self.pssDigest(der, params) else { return nil }
            self = .rsaPSS(digest)
        default:
            return nil
        }
    }

    /// RSA PKCS#1 v1.5 OIDs (md2, md5, sha1, sha224, sha256, sha384, sha512 with RSA).
    static let rsaPKCS1OIDs: Set<String> = [
        "1.2.840.113549.1.1.2", "1.2.840.113549.1.1.4", "1.2.840.113549.1.1.5", "1.2.840.113549.1.1.14",
        "1.2.840.113549.1.1.11", "1.2.840.113549.1.1.12", "1.2.840.113549.1.1.13",
    ]

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
        return x.oid == y.oid && rsaPKCS1OIDs.contains(x.oid) && x.paramsAbsentOrNull && y.paramsAbsentOrNull
    }

    private static let digestOIDs: [String: DigestAlgorithm] = [
        "2.16.840.1.101.3.4.2.1": .sha256, "2.16.840.1.101.3.4.2.2": .sha384, "2.16.840.1.101.3.4.2.3": .sha512,
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
        guard (try? mf.read(DERTag.objectIdentifier, "mgf").objectIdentifier(in: der)) == "1.2.840.113549.1.1.8",
              let mgfHash = try? mf.readAny(), mf.isAtEnd, self.digest(der, mgfHash) == digest else { return nil }
        var s = DERReader(der, contentsOf: saltField)
        guard let salt = try? s.read(DERTag.integer, "salt").smallInteger(in: der), s.isAtEnd, salt == digest.length else { return nil }
        return digest
    }
}
