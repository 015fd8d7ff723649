import Foundation

/// The fields of a certificate, read from its DER by `DERReader` (RFC 5280 §4.1).
///
/// Only structure is checked here (the DER is well formed and every field the core exposes has the
/// type RFC 5280 says); signatures, validity against a date and all policy checks are the backend's
/// job during evaluation.
struct ParsedCertificate: Sendable {
    var version = 1
    var serialNumber: [UInt8] = []
    var signatureAlgorithm = SignatureAlgorithm(oid: "")
    var issuer: DistinguishedName
    var subject: DistinguishedName
    var notValidBefore = Date.distantPast
    var notValidAfter = Date.distantPast
    var publicKey: PublicKey
    var dnsNames: [String] = []
    var ipAddresses: [IPAddress] = []
    var emailAddresses: [String] = []
    var uris: [String] = []
    var basicConstraints: BasicConstraints?
    var keyUsage: KeyUsage?
    var extendedKeyUsage: [String]?
    var hasNameConstraints = false
    var extensions: [(oid: String, critical: Bool)] = []
    /// Which id-ce extensions (2.5.29.n) are present, and which of them are critical, as bits n:
    /// the structural rules ask about several of them for every certificate of every path.
    var idCEPresent: (low: UInt64, high: UInt64) = (0, 0)
    var idCECritical: (low: UInt64, high: UInt64) = (0, 0)
    /// The whole encoded TBSCertificate (what the issuer signed).
    var tbsRange: Range<Int> = 0..<0
    /// The signatureValue BIT STRING's bytes, without the unused-bits octet.
    var signatureRange: Range<Int> = 0..<0
    /// The signature scheme, when it is one the engine accepts (nil: forbidden or unknown).
    var signatureScheme: SignatureScheme?
    var subjectAltNames: [GeneralName] = []
    var subjectKeyIdentifier: [UInt8]?
    var authorityKeyIdentifier: AuthorityKeyIdentifier?
    var nameConstraints: NameConstraints?
    /// Why the nameConstraints extension is unusable, when it is (the engine refuses such a CA).
    var nameConstraintsProblem: String?
    /// certificatePolicies, policyMappings, policyConstraints, inhibitAnyPolicy (``PolicyGraph``).
    var policyExtensions = CertificatePolicyExtensions()
    /// OCSP responders and CRL distribution points (``RevocationPointers``).
    var revocationPointers = RevocationPointers()
    /// Whether the certificate carries id-pkix-ocsp-nocheck (a delegated OCSP responder's own
    /// status is not checked, RFC 6960 §4.2.2.2.1).
    var hasOCSPNoCheck = false
    /// The `extnValue` contents of the embedded SCT list extension (RFC 6962 §3.3), when present.
    /// Kept unread: a malformed list makes the SCTs invalid under a transparency policy, never the
    /// certificate unparseable.
    var embeddedSCTListRange: Range<Int>?

    init(_ der: [UInt8]) throws {
        let signed = try SignedData.whole(der, name: "certificate", tbsName: "TBSCertificate")
        let tbs = signed.tbs, outerAlgorithm = signed.algorithm
        tbsRange = tbs.encoded
        signatureRange = signed.signatureRange

        var t = DERReader(der, contentsOf: tbs)
        if let explicitVersion = try t.readOptional(DERTag.contextSpecific(0, constructed: true)) {
            var v = DERReader(der, contentsOf: explicitVersion)
            let raw = try v.read(DERTag.integer, "version").smallInteger(in: der)
            guard raw <= 2 else { throw DERError(description: "unknown certificate version \(raw + 1)") }
            version = raw + 1
        }
        let serial = try t.read(DERTag.integer, "serialNumber")
        guard !serial.contents.isEmpty else { throw DERError(description: "empty serialNumber") }
        serialNumber = Array(der[serial.contents])

        let innerAlgorithm = try t.read(DERTag.sequence, "signature AlgorithmIdentifier")
        guard der[innerAlgorithm.encoded] == der[outerAlgorithm.encoded]
                || SignatureScheme.areEquivalentRSAIdentifiers(der, innerAlgorithm, outerAlgorithm) else {
            throw DERError(description: "inner and outer signature algorithms differ")
        }
        // The scheme comes from the signed (inner) identifier: the outer one is not covered by the signature.
        signatureScheme = SignatureScheme(algorithmIdentifier: der, node: innerAlgorithm)
        var alg = DERReader(der, contentsOf: innerAlgorithm)
        signatureAlgorithm = SignatureAlgorithm(oid: try alg.read(DERTag.objectIdentifier, "algorithm OID").objectIdentifier(in: der))

        issuer = try DistinguishedName(bytes: der, node: try t.read(DERTag.sequence, "issuer Name"))
        let validity = try t.read(DERTag.sequence, "Validity")
        var vr = DERReader(der, contentsOf: validity)
        notValidBefore = try ValidityTime.decode(der, try vr.readAny())
        notValidAfter = try ValidityTime.decode(der, try vr.readAny())
        guard vr.isAtEnd else { throw DERError(description: "extra fields in Validity") }
        subject = try DistinguishedName(bytes: der, node: try t.read(DERTag.sequence, "subject Name"))

        let spki = try t.read(DERTag.sequence, "SubjectPublicKeyInfo")
        publicKey = try PublicKey(spkiBytes: der, node: spki)

        _ = try t.readOptional(DERTag.contextSpecific(1, constructed: false))  // issuerUniqueID
        _ = try t.readOptional(DERTag.contextSpecific(2, constructed: false))  // subjectUniqueID
        if let explicitExtensions = try t.readOptional(DERTag.contextSpecific(3, constructed: true)) {
            guard version == 3 else { throw DERError(description: "extensions in a v\(version) certificate") }
            var e = DERReader(der, contentsOf: explicitExtensions)
            let list = try e.read(DERTag.sequence, "Extensions")
            guard e.isAtEnd else { throw DERError(description: "extra data after Extensions") }
            try parseExtensions(der, list)
        }
        guard t.isAtEnd else { throw DERError(description: "unexpected fields at the end of TBSCertificate") }
    }

    private mutating func parseExtensions(_ der: [UInt8], _ list: DERNode) throws {
        // Room for a typical certificate's extensions at once, not one reallocation per doubling.
        extensions.reserveCapacity(10)
        // Certificates have always been read with an empty Extensions accepted.
        try DERExtensions.forEach(der, list, allowsEmpty: true) { oid, oidNode, critical, value in
            extensions.append((oid, critical))
            var v = DERReader(der, contentsOf: value)
            // Dispatch on the id-ce number where there is one: no dotted-string comparisons for
            // the extensions nearly every certificate carries.
            let idCE = ExtensionOID.idCENumber(der, oidNode)
            if let n = idCE {
                let bit: UInt64 = 1 << (n & 63)
                if n < 64 { idCEPresent.low |= bit } else { idCEPresent.high |= bit }
                if critical { if n < 64 { idCECritical.low |= bit } else { idCECritical.high |= bit } }
            }
            switch idCE {
            case ExtensionOID.IDCE.certificatePolicies?, ExtensionOID.IDCE.policyMappings?,
                 ExtensionOID.IDCE.policyConstraints?, ExtensionOID.IDCE.inhibitAnyPolicy?:
                guard try policyExtensions.parse(oid, der, &v) else { throw DERError(description: "policy extension \(oid) not read") }
            case ExtensionOID.IDCE.subjectAltName?:
                try parseSubjectAltName(der, try v.read(DERTag.sequence, "GeneralNames"))
            case ExtensionOID.IDCE.basicConstraints?:
                try parseBasicConstraints(der, try v.read(DERTag.sequence, "BasicConstraints"), critical)
            case ExtensionOID.IDCE.keyUsage?:
                try parseKeyUsage(der, try v.read(DERTag.bitString, "KeyUsage"))
            case ExtensionOID.IDCE.extendedKeyUsage?:
                let seq = try v.read(DERTag.sequence, "ExtKeyUsageSyntax")
                var r = DERReader(der, contentsOf: seq)
                var purposes: [String] = []
                while !r.isAtEnd { purposes.append(try r.read(DERTag.objectIdentifier, "KeyPurposeId").objectIdentifier(in: der)) }
                guard !purposes.isEmpty else { throw DERError(description: "empty extendedKeyUsage") }
                extendedKeyUsage = purposes
            case ExtensionOID.IDCE.nameConstraints?:
                let node = try v.read(DERTag.sequence, "NameConstraints")
                hasNameConstraints = true
                do {
                    nameConstraints = try NameConstraints.parse(der, node)
                } catch let error as DERError {
                    nameConstraintsProblem = error.description
                }
            case ExtensionOID.IDCE.subjectKeyIdentifier?:
                subjectKeyIdentifier = Array(der[try v.read(DERTag.octetString, "SubjectKeyIdentifier").contents])
            case ExtensionOID.IDCE.authorityKeyIdentifier?:
                authorityKeyIdentifier = try AuthorityKeyIdentifier.parse(der, try v.read(DERTag.sequence, "AuthorityKeyIdentifier"))
            case ExtensionOID.IDCE.crlDistributionPoints?:
                try revocationPointers.parseCRLDistributionPoints(der, try v.read(DERTag.sequence, "CRLDistributionPoints"))
            case .some:
                return
            case nil:
                switch oid {
                case ExtensionOID.authorityInfoAccess:
                    try revocationPointers.parseAuthorityInfoAccess(der, try v.read(DERTag.sequence, "AuthorityInfoAccessSyntax"))
                case ExtensionOID.ocspNoCheck:
                    _ = try v.read(DERTag.null, "OCSP nocheck NULL")
                    hasOCSPNoCheck = true
                case TransparencyOID.embeddedSCTList:
                    embeddedSCTListRange = value.contents
                    return
                default:
                    return
                }
            }
            guard v.isAtEnd else { throw DERError(description: "trailing data in extension \(oid)") }
        }
    }

    private mutating func parseSubjectAltName(_ der: [UInt8], _ node: DERNode) throws {
        subjectAltNames = try GeneralName.parseSequence(der, node)
        for name in subjectAltNames {
            switch name {
            case .rfc822Name(let s): emailAddresses.append(s)
            case .dnsName(let s): dnsNames.append(s)
            case .uniformResourceIdentifier(let s): uris.append(s)
            case .ipAddress(let bytes):
                // An iPAddress SAN is 4 or 16 bytes; anything else (e.g. an 8/32-byte name-constraint
                // form in the wrong place) is malformed.
                guard let ip = IPAddress(bytes: bytes) else {
                    throw DERError(description: "iPAddress SAN of \(bytes.count) bytes")
                }
                ipAddresses.append(ip)
            case .directoryName, .other:
                continue
            }
        }
    }

    private mutating func parseBasicConstraints(_ der: [UInt8], _ node: DERNode, _ critical: Bool) throws {
        var r = DERReader(der, contentsOf: node)
        var ca = false
        if let b = try r.readOptional(DERTag.boolean) { ca = try b.boolean(in: der) }
        var pathLength: Int?
        if let p = try r.readOptional(DERTag.integer) { pathLength = try p.smallInteger(in: der) }
        guard r.isAtEnd else { throw DERError(description: "trailing data in BasicConstraints") }
        basicConstraints = BasicConstraints(isCertificateAuthority: ca, pathLengthConstraint: pathLength, isCritical: critical)
    }

    private mutating func parseKeyUsage(_ der: [UInt8], _ node: DERNode) throws {
        let (_, range) = try node.bitStringBytes(in: der)
        var bits: UInt16 = 0
        // Bit 0 is the most significant bit of the first byte.
        for (byteIndex, i) in range.enumerated() where byteIndex < 2 {
            for bit in 0..<8 where der[i] & (0x80 >> UInt8(bit)) != 0 {
                bits |= 1 << UInt16(byteIndex * 8 + bit)
            }
        }
        keyUsage = KeyUsage(rawValue: bits)
    }
}
