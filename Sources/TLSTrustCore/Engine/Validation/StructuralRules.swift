/// Rules about how a certificate is put together, as opposed to what it says.
///
/// Two tiers: what RFC 5280 itself demands (applied under every profile), and the stricter rules
/// that web-PKI verifiers enforce (CA/B Forum BRs, `openssl verify -x509_strict`, rustls-webpki,
/// pyca/cryptography), applied under ``ValidationProfile/webPKI`` and relaxed under
/// ``ValidationProfile/rfc5280`` for private PKIs. `docs/validation.md` lists both tiers.
enum StructuralRules {
    /// A certificate's place in the path.
    enum Role: Equatable {
        case leaf
        case intermediate
        case anchor
        /// The leaf is itself an anchor (a path of one certificate).
        case leafAnchor

        var isCA: Bool { self == .intermediate || self == .anchor }
    }

    struct Violation {
        let code: TrustFailureCode
        let message: String
    }

    static func violations(_ c: Certificate, role: Role, profile: ValidationProfile) -> [Violation] {
        var out: [Violation] = []
        func add(_ code: TrustFailureCode, _ message: String) { out.append(Violation(code: code, message: message)) }
        let isCA = c.basicConstraints?.isCertificateAuthority ?? false
        let ku = c.keyUsage

        // MARK: RFC 5280 (every profile)
        if c.issuer.isEmpty { add(.malformedCertificate, "empty issuer name (RFC 5280 §4.1.2.4)") }
        if role.isCA && c.subject.isEmpty { add(.malformedCertificate, "CA certificate with an empty subject name (RFC 5280 §4.1.2.6)") }
        if let sanCritical = c.isCritical(idCE: ExtensionOID.IDCE.subjectAltName), c.subjectAltNames.isEmpty {
            _ = sanCritical
            add(.malformedCertificate, "empty subjectAltName extension (RFC 5280 §4.2.1.6)")
        }
        if c.subject.isEmpty && c.isCritical(idCE: ExtensionOID.IDCE.subjectAltName) != true {
            add(.malformedCertificate, "empty subject without a critical subjectAltName (RFC 5280 §4.2.1.6)")
        }
        if c.isCritical(idCE: ExtensionOID.IDCE.authorityKeyIdentifier) == true {
            add(.malformedCertificate, "critical authorityKeyIdentifier (RFC 5280 §4.2.1.1: MUST NOT)")
        }
        if c.isCritical(idCE: ExtensionOID.IDCE.subjectKeyIdentifier) == true {
            add(.malformedCertificate, "critical subjectKeyIdentifier (RFC 5280 §4.2.1.2: MUST NOT)")
        }
        if let ku, ku.contains(.keyCertSign), !isCA {
            add(.invalidKeyUsage, "keyCertSign without basicConstraints cA (RFC 5280 §4.2.1.3)")
        }
        if let bc = c.basicConstraints, bc.pathLengthConstraint != nil,
           !bc.isCertificateAuthority || (ku.map { !$0.contains(.keyCertSign) } ?? false) {
            add(.invalidKeyUsage, "pathLenConstraint without cA and keyCertSign (RFC 5280 §4.2.1.9)")
        }
        if c.hasNameConstraints && !isCA {
            add(.malformedCertificate, "nameConstraints in a certificate that is not a CA (RFC 5280 §4.2.1.10)")
        }
        if let ku, ku.isEmpty {
            add(.invalidKeyUsage, "keyUsage with no bit set (RFC 5280 §4.2.1.3)")
        }

        // MARK: Web PKI (relaxed under .rfc5280)
        guard profile == .webPKI else { return out }
        // Anchors are trusted by configuration (RFC 5280 §6.1.1 (d): a name and a key), so the
        // issuance rules below (version, serial number, AKI) are not held against them.
        let isAnchor = role == .anchor || role == .leafAnchor
        if c.version != 3 && !isAnchor { add(.malformedCertificate, "X.509 v\(c.version) certificate (web PKI: v3 only)") }
        if !isAnchor, let problem = serialNumberProblem(c.serialNumber) { add(.malformedCertificate, problem) }
        // Issuance rules (RFC 5280 addresses these MUSTs to conforming CAs; path validation, §6.1,
        // processes the extensions whatever their flag, as `PolicyGraph` does), read strictly here
        // only. nameConstraints' MUST (§4.2.1.10) is not among them: the web PKI accepts a
        // non-critical nameConstraints (x509-limbo's `webpki::nc::permitted-dns-match-noncritical`).
        if c.isCritical(idCE: ExtensionOID.IDCE.policyConstraints) == false {
            add(.malformedCertificate, "non-critical policyConstraints (RFC 5280 §4.2.1.11: conforming CAs MUST mark it critical)")
        }
        if !isAnchor, c.isCritical(idCE: ExtensionOID.IDCE.inhibitAnyPolicy) == false {
            add(.malformedCertificate, "non-critical inhibitAnyPolicy (RFC 5280 §4.2.1.14: conforming CAs MUST mark it critical)")
        }
        // A v1 anchor cannot carry extensions at all; what it is trusted for is its name and key.
        if role.isCA && !(role == .anchor && c.version < 3) {
            // An absent basicConstraints is already `notCertificateAuthority` (PathValidator).
            if let bc = c.basicConstraints, !bc.isCritical {
                add(.malformedCertificate, "CA certificate whose basicConstraints is not critical")
            }
            if c.subjectKeyIdentifier == nil { add(.malformedCertificate, "CA certificate without subjectKeyIdentifier") }
            if ku == nil { add(.invalidKeyUsage, "CA certificate without keyUsage") }
        }
        if !isAnchor && !c.isSelfIssued && c.authorityKeyIdentifier?.keyIdentifier == nil {
            add(.malformedCertificate, c.authorityKeyIdentifier == nil
                ? "certificate without authorityKeyIdentifier (web PKI: required unless self-issued)"
                : "authorityKeyIdentifier without keyIdentifier")
        }
        if let aki = c.authorityKeyIdentifier {
            if aki.hasIssuerAndSerial { add(.malformedCertificate, "authorityKeyIdentifier with authorityCertIssuer/SerialNumber (web PKI: MUST NOT)") }
            if aki.keyIdentifier == nil && c.isSelfIssued { add(.malformedCertificate, "authorityKeyIdentifier without keyIdentifier") }
            if c.isSelfIssued, let keyID = aki.keyIdentifier, let ski = c.subjectKeyIdentifier, keyID != ski,
               role == .anchor || role == .leafAnchor {
                add(.malformedCertificate, "self-issued certificate whose authorityKeyIdentifier differs from its own subjectKeyIdentifier")
            }
        }
        if role == .leaf || role == .leafAnchor {
            // A leaf that is itself one of the request's anchors (the self-signed server an app
            // pins, `openssl req -x509`'s cA:TRUE default) is trusted as that exact certificate,
            // whatever its cA flag, as Apple and Go trust it; `Certificate.lint()` warns.
            if isCA && role == .leaf { add(.malformedCertificate, "leaf certificate that is a CA (basicConstraints cA:TRUE)") }
            if c.isCritical(idCE: ExtensionOID.IDCE.extendedKeyUsage) == true {
                add(.malformedCertificate, "critical extendedKeyUsage in a leaf certificate (web PKI: MUST NOT)")
            }
            if c.extendedKeyUsage?.contains(ExtendedKeyUsageOID.anyExtendedKeyUsage) == true {
                add(.purposeNotAllowed, "anyExtendedKeyUsage in a leaf certificate (CA/B Forum BR §7.1.2.7.10: MUST NOT)")
            }
            if let problem = commonNameProblem(c) { add(.malformedCertificate, problem) }
        }
        if c.isCritical(idCE: ExtensionOID.IDCE.subjectAltName) == true && !c.subject.isEmpty {
            add(.malformedCertificate, "critical subjectAltName with a non-empty subject (web PKI)")
        }
        return out
    }

    /// A leaf's subject commonName that re-encodes one of its subjectAltNames, or writes an IP
    /// address non-canonically: the CN texts that read as one name to one verifier and as another
    /// to the next (CA/B Forum BR §7.1.4.3 forbids them; x509-limbo's `webpki::cn::*`).
    ///
    /// Refused: an IP address in any notation but its canonical text (`0xC0A80101`,
    /// `192.168.001.001`, upper-case or uncompressed IPv6); a domain name in U-labels; a SAN's
    /// dNSName in other case. Not refused: a CN that is simply another name or another canonical
    /// address (`CN=127.0.0.1` over `SAN DNS:test.localhost`, a descriptive CN in a private PKI).
    /// With any subjectAltName present the CN is never an identity (``CommonNameIdentity``), so
    /// such a CN misleads no matcher; `LintWarning` reports it as the issuance fault it is.
    static func commonNameProblem(_ c: Certificate) -> String? {
        guard !c.subjectAltNames.isEmpty else { return nil }
        for cn in c.subject.commonNames {
            if c.dnsNames.contains(cn) || c.ipAddresses.contains(where: { $0.description == cn }) { continue }
            if looksLikeIPAddress(cn) && IPAddress(cn)?.description != cn {
                return "subject commonName '\(cn)' writes an IP address other than in its canonical text (CA/B Forum BR §7.1.4.3)"
            }
            if !cn.utf8.allSatisfy({ $0 < 0x80 }) && cn.contains(".") && !cn.contains(" ") {
                return "subject commonName '\(cn)' is a domain name in U-labels (CA/B Forum BR §7.1.4.3: A-labels, as in the SAN)"
            }
            if c.dnsNames.contains(where: { $0.lowercased() == cn.lowercased() }) {
                return "subject commonName '\(cn)' differs in case from its subjectAltName (CA/B Forum BR §7.1.4.3: a byte-for-byte copy)"
            }
        }
        return nil
    }

    /// An IP address in any notation a resolver might accept: a strict literal, a dotted quad with
    /// leading zeros, or a hexadecimal number.
    static func looksLikeIPAddress(_ s: String) -> Bool {
        if IPAddress(s) != nil { return true }
        let lower = s.lowercased()
        if lower.hasPrefix("0x"), lower.count > 2, lower.dropFirst(2).allSatisfy(\.isHexDigit) { return true }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// RFC 5280 §4.1.2.2: positive, at most 20 octets.
    static func serialNumberProblem(_ serial: [UInt8]) -> String? {
        guard let first = serial.first else { return "empty serial number" }
        if first & 0x80 != 0 { return "negative serial number" }
        if serial.allSatisfy({ $0 == 0 }) { return "serial number zero" }
        if serial.count > 20 { return "serial number longer than 20 octets" }
        return nil
    }
}
