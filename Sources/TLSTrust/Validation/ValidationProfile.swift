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

    public var description: String { rawValue }
}
