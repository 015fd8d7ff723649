/// Which structural rules the engine applies on top of RFC 5280 path validation.
///
/// Names, keys, algorithms, validity and constraints are never relaxed by a profile; only the
/// structural rules listed in `docs/validation.md` differ.
public enum ValidationProfile: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The rules strict web-PKI verifiers enforce (Chromium, rustls-webpki, pyca/cryptography,
    /// `openssl verify -x509_strict`): the default.
    case webPKI = "webpki"
    /// RFC 5280 for private PKIs that lack some extensions the web PKI requires.
    case rfc5280
    /// Apple's published trust rules, for code ported from Security.framework (the `Security`
    /// module evaluates with it): the RFC 5280 structural rules — Apple's SecTrust does not
    /// require authorityKeyIdentifier or subjectKeyIdentifier, trusts a root evaluated as its own
    /// leaf and a CA certificate in leaf position — and, like every profile, subjectAltName-only
    /// host names for the SSL policy, RSA keys of at least 2048 bits and no SHA-1. One RFC 5280
    /// MUST that Apple does not enforce is relaxed: nameConstraints need not be critical. The
    /// extendedKeyUsage is checked on the leaf only, as trustd does, and TLS server certificates
    /// are held to trustd's validity maximums and serverAuth requirement by anchor source
    /// (`AppleServerRules`). `docs/validation.md` lists Apple's rules one by one, each with its
    /// source in trustd, with those not applied and why.
    case apple

    public var description: String { rawValue }
}
