extension Certificate {
    /// Issuance faults of this certificate that do not change a verdict but that its owner
    /// should fix: rules that protect nobody at validation time belong here, not in the engine.
    ///
    /// - A subject commonName that names a host or an address that no subjectAltName carries
    ///   (``LintWarning/Code/commonNameNotInSubjectAltName``).
    /// - A certificate with basicConstraints cA:TRUE and a host-name subjectAltName, the shape of a
    ///   self-signed server certificate made with `openssl req -x509`
    ///   (``LintWarning/Code/leafIsCertificateAuthority``): the engine trusts it only as its own
    ///   anchor, and its key could sign other certificates.
    public func lint() -> [LintWarning] {
        var warnings: [LintWarning] = []
        let subject = self.subject.description
        if !subjectAltNames.isEmpty {
            for attribute in self.subject.attributes where attribute.oid == AttributeOID.commonName {
                let cn = attribute.value
                let namesHost = IPAddress(cn) != nil || DNSName.labels(cn, allowWildcard: true) != nil
                let inSAN = dnsNames.contains(cn) || ipAddresses.contains { $0.description == cn }
                if namesHost && !inSAN {
                    warnings.append(LintWarning(.commonNameNotInSubjectAltName, subject: subject,
                        "subject commonName '\(cn)' is not among the subjectAltNames (CA/B Forum BR §7.1.4.3); TLSTrust ignores it, legacy clients may not"))
                }
            }
        }
        if basicConstraints?.isCertificateAuthority == true && (!dnsNames.isEmpty || !ipAddresses.isEmpty) {
            warnings.append(LintWarning(.leafIsCertificateAuthority, subject: subject,
                "a CA certificate (cA:TRUE) that names a host: trusted as a server only as its own anchor, and its key can sign other certificates; issue a leaf with cA:FALSE"))
        }
        return warnings
    }
}
