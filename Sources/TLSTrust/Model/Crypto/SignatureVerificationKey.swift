/// A subject public key imported into a backend's library, ready to verify signatures.
///
/// Made once per certificate and backend by ``TrustBackend/importPublicKey(_:)`` and cached on the
/// ``Certificate`` (see ``Certificate/verificationKey(for:)``), so that an intermediate seen on
/// every handshake is decoded by the library only once.
///
/// Requirements: immutable after creation and safe to use from many threads at once (each call
/// makes its own library context).
public protocol SignatureVerificationKey: AnyObject, Sendable {
    /// Whether `signature` is a valid signature of `message` under this key with `scheme`.
    ///
    /// - Returns: false for a wrong signature, a signature that cannot be decoded, or a scheme
    ///   that does not fit this key (an ECDSA signature for an RSA key, say).
    /// - Throws: `TLSTrustError` `.unsupported` when the library cannot perform `scheme` at all
    ///   (the engine then refuses the evaluation as unsupported instead of guessing).
    func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool
}
