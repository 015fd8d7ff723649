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
        if let sanCritical = c.isCritical(ExtensionOID.subjectAltName), c.subjectAltNames.isEmpty {
            _ = sanCritical
            add(.malformedCertificate, "empty subjectAltName extension (RFC 5280 §4.2.1.6)")
        }
        if c.subject.isEmpty && c.isCritical(ExtensionOID.subjectAltName) != true {
            add(.malformedCertificate, "empty subject without a critical subjectAltName (RFC 5280 §4.2.1.6)")
        }
        if c.isCritical(ExtensionOID.authorityKeyIdentifier) == true {
            add(.malformedCertificate, "critical authorityKeyIdentifier (RFC 5280 §4.2.1.1: MUST NOT)")
        }
        if c.isCritical(ExtensionOID.subjectKeyIdentifier) == true {
            add(.malformedCertificate, "critical subjectKeyIdentifier (RFC 5280 §4.2.1.2: MUST NOT)")
        }
        if c.isCritical(ExtensionOID.policyConstraints) == false {
            add(.malformedCertificate, "non-critical policyConstraints (RFC 5280 §4.2.1.11: MUST be critical)")
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
        if profile == .rfc5280, c.isCritical(ExtensionOID.nameConstraints) == false {
            add(.malformedCertificate, "non-critical nameConstraints (RFC 5280 §4.2.1.10: MUST be critical)")
        }

        // MARK: Web PKI (relaxed under .rfc5280)
        guard profile == .webPKI else { return out }
        if c.version != 3 { add(.malformedCertificate, "X.509 v\(c.version) certificate (web PKI: v3 only)") }
        if let problem = serialNumberProblem(c.serialNumber) { add(.malformedCertificate, problem) }
        if role.isCA {
            if c.basicConstraints?.isCritical != true {
                add(.malformedCertificate, c.basicConstraints == nil
                    ? "CA certificate without basicConstraints" : "CA certificate whose basicConstraints is not critical")
            }
            if c.subjectKeyIdentifier == nil { add(.malformedCertificate, "CA certificate without subjectKeyIdentifier") }
            if ku == nil { add(.invalidKeyUsage, "CA certificate without keyUsage") }
        }
        if !c.isSelfIssued && c.authorityKeyIdentifier?.keyIdentifier == nil {
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
            if isCA { add(.malformedCertificate, "leaf certificate that is a CA (basicConstraints cA:TRUE)") }
            if c.isCritical(ExtensionOID.extendedKeyUsage) == true {
                add(.malformedCertificate, "critical extendedKeyUsage in a leaf certificate (web PKI: MUST NOT)")
            }
        }
        if c.isCritical(ExtensionOID.subjectAltName) == true && !c.subject.isEmpty {
            add(.malformedCertificate, "critical subjectAltName with a non-empty subject (web PKI)")
        }
        return out
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
