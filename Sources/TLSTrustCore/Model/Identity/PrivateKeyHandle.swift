/// A private key held by a backend, opaque to the core.
///
/// The key material stays inside the TLS library (an `EVP_PKEY`, a `gnutls_x509_privkey_t`, an
/// `mbedtls_pk_context`); the core sees only its public half, so that it can check that a key
/// belongs to a certificate. A backend's TLS code casts the handle back to its own type.
public protocol PrivateKeyHandle: AnyObject, Sendable {
    /// The public half of the key, as a SubjectPublicKeyInfo.
    var publicKey: PublicKey { get }
}
