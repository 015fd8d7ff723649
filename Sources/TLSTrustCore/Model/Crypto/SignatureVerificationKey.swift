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
    /// The engine calls it only for a scheme the provider's ``TrustBackend/signatureAlgorithms``
    /// pairs with this key's type: a key never checks whether a scheme fits it.
    ///
    /// - Returns: false for a wrong signature or one that cannot be decoded.
    /// - Throws: `TLSTrustError` `.unsupported` when the library cannot perform `scheme` at all
    ///   (the engine then refuses the evaluation as unsupported instead of guessing).
    func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool
}
