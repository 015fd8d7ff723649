import Foundation
import TLSTrustCore

/// A precertificate and the certificate issued after it (RFC 6962 §3.1), for embedded SCTs.
///
/// The precertificate is the profile with the critical poison extension, signed by the issuer or
/// by a precertificate signing certificate (a CA certificate with the Certificate Transparency
/// extended key usage, issued by the final issuer). The log's view of it is computed here by the
/// kit's own DER walk, independently of the core's parser: the poison removed, and for a
/// precertificate signing certificate the issuer name and authority key identifier replaced by
/// the final issuer's (RFC 6962 §3.2).
///
/// ```swift
/// let pre = try TestPrecertificate(profile: leafProfile, issuer: ca)
/// let sct = try log.sct(forPrecertificateTBS: pre.logEntryTBS, issuerKeyHash: pre.issuerKeyHash)
/// let leaf = try pre.issueFinal(scts: [sct])
/// ```
public struct TestPrecertificate: Sendable {
    /// The profile both certificates share (its serial number and validity fixed).
    public let profile: CertificateProfile
    /// The final certificate's issuer.
    public let issuer: TestCertificate
    /// The precertificate's DER, poison included.
    public let der: [UInt8]
    /// The subject key both certificates certify.
    public let subjectKey: TestPrivateKey
    /// The TBSCertificate a log signs: the precertificate's, poison removed (and issuer rewritten).
    public let logEntryTBS: [UInt8]

    /// Mints the precertificate for `profile`, signed by `issuer` or by `precertificateSigner`.
    public init(profile: CertificateProfile, issuer: TestCertificate, precertificateSigner: TestCertificate? = nil) throws {
        var fixed = profile
        if fixed.serialNumber == nil { fixed.serialNumber = [0x41] + (0..<15).map { _ in UInt8.random(in: 0...255) } }
        self.profile = fixed
        self.issuer = issuer
        subjectKey = try TestPrivateKey(fixed.effectiveKeyType)
        var pre = fixed
        pre.extensions.append(SCTListEncoding.poisonExtension)
        der = try TestPKI.mintDER(pre, subjectKey: subjectKey, issuer: precertificateSigner ?? issuer)
        logEntryTBS = try Self.logView(of: der, precertificateSigner: precertificateSigner)
    }

    /// SHA-256 of the final issuer's SubjectPublicKeyInfo.
    public var issuerKeyHash: [UInt8] { issuer.certificate.publicKey.sha256 }

    /// The final certificate: the same profile with the SCT list extension in the poison's place.
    public func issueFinal(scts: [[UInt8]]) throws -> TestCertificate {
        try issueFinal(extensionValue: SCTListEncoding.extensionValue(SCTListEncoding.list(scts)))
    }

    /// The final certificate with any bytes as the SCT list extension's value (for malformed lists).
    public func issueFinal(extensionValue: [UInt8]) throws -> TestCertificate {
        var final = profile
        final.extensions.append(RawExtension(oid: TransparencyOID.embeddedSCTList, isCritical: false, valueDER: extensionValue))
        return try TestPKI.issue(final, subjectKey: subjectKey, issuer: issuer)
    }

    /// A precertificate signing certificate for `issuer`: a CA certificate whose only extended
    /// key usage is Certificate Transparency's (1.3.6.1.4.1.11129.2.4.4).
    public static func signingCertificate(issuedBy issuer: TestCertificate) throws -> TestCertificate {
        var profile = CertificateProfile.certificateAuthority(commonName: "Precertificate Signing")
        profile.extensions.append(RawExtension(
            oid: RawExtension.OID.extendedKeyUsage, isCritical: false,
            valueDER: DER.sequence([DER.objectIdentifier(TransparencyOID.precertificateSigning)])))
        return try TestPKI.issue(profile, issuer: issuer)
    }

    /// The TBSCertificate of `precertificate` as a log signs it: its fields in order, the poison
    /// extension left out, and with a precertificate signing certificate the signer's issuer name
    /// and authority key identifier in place of its own (the extensions keep their order).
    static func logView(of precertificate: [UInt8], precertificateSigner: TestCertificate?) throws -> [UInt8] {
        let tbs = try DERElement(precertificate, at: try DERElement(precertificate, at: 0).contentStart)
        var fields = try tbs.children(of: precertificate).map { $0.bytes(of: precertificate) }
        let signerTBS: (bytes: [UInt8], fields: [DERElement])? = try precertificateSigner.map { signer in
            let element = try DERElement(signer.der, at: try DERElement(signer.der, at: 0).contentStart)
            return (signer.der, try element.children(of: signer.der))
        }
        // [0] version, serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, …, [3] extensions
        let issuerIndex = fields.first?.first == 0xA0 ? 3 : 2
        if let signerTBS {
            let signerIssuerIndex = signerTBS.fields.first?.tag == 0xA0 ? 3 : 2
            fields[issuerIndex] = signerTBS.fields[signerIssuerIndex].bytes(of: signerTBS.bytes)
        }
        guard let extensionsIndex = fields.lastIndex(where: { $0.first == 0xA3 }) else {
            throw TestPKIError(operation: "no extensions in the precertificate")
        }
        let signerAKI = try signerTBS.flatMap { signer in
            try signer.fields.last(where: { $0.tag == 0xA3 }).flatMap { try Self.extensions(in: $0, of: signer.bytes) }?
                .first(where: { $0.oid == RawExtension.OID.authorityKeyIdentifier })?.der
        }
        let wrapper = try DERElement(fields[extensionsIndex], at: 0)
        var kept: [[UInt8]] = []
        var removedPoison = false
        for item in try Self.extensions(in: wrapper, of: fields[extensionsIndex]) {
            switch item.oid {
            case TransparencyOID.precertificatePoison: removedPoison = true
            case RawExtension.OID.authorityKeyIdentifier where signerAKI != nil: kept.append(signerAKI!)
            default: kept.append(item.der)
            }
        }
        guard removedPoison else { throw TestPKIError(operation: "no poison extension to remove") }
        fields[extensionsIndex] = DER.contextSpecific(3, constructed: true, DER.sequence(kept))
        return DER.sequence(fields)
    }

    /// The extensions inside a `[3]` wrapper, each with its OID (dotted) and its whole DER.
    private static func extensions(in wrapper: DERElement, of bytes: [UInt8]) throws -> [(oid: String, der: [UInt8])] {
        guard let list = try wrapper.children(of: bytes).first else { return [] }
        return try list.children(of: bytes).map { item in
            guard let oid = try item.children(of: bytes).first, oid.tag == DER.Tag.objectIdentifier else {
                throw TestPKIError(operation: "an extension without an OID")
            }
            return (Self.dotted(oid.contents(of: bytes)), item.bytes(of: bytes))
        }
    }

    /// The dotted form of an OBJECT IDENTIFIER's contents.
    private static func dotted(_ contents: [UInt8]) -> String {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for byte in contents {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { arcs.append(value); value = 0 }
        }
        guard let first = arcs.first else { return "" }
        let head = first < 80 ? [first / 40, first % 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}
