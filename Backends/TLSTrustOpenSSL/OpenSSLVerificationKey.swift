internal import COpenSSL
import TLSTrust

/// A subject public key imported into OpenSSL once (→ `EVP_PKEY`), for the engine's signature
/// checks.
///
/// RSA (rsaEncryption) and EC keys on P-256, P-384 and P-521 with uncompressed points are built from
/// their parts (`OpenSSLKeyParts`): `EVP_PKEY_fromdata` from the modulus and exponent, or a copy
/// of the curve's parameters given the point. Everything else (id-RSASSA-PSS, Ed25519, other
/// curves, compressed points) goes through `d2i_PUBKEY`, which in OpenSSL 3 sets up a decoder on
/// every call: about 1.1 million instructions per key, most of them looking up the decoder under
/// process-wide locks, which keep parallel evaluations from scaling.
///
/// Thread safety: OpenSSL 3 lets many threads use one `EVP_PKEY` at once as long as none modifies
/// it (openssl-threads(7)); every call here makes its own `EVP_MD_CTX` / `EVP_PKEY_CTX` and only
/// reads the key, so the object is shared read-only.
final class OpenSSLVerificationKey: SignatureVerificationKey, @unchecked Sendable {  // EVP_PKEY is only read after init
    private let pkey: OpaquePointer
    /// Whether the key is an id-RSASSA-PSS one, whose restrictions may refuse the set-up.
    private let restrictedToPSS: Bool

    /// Imports a DER SubjectPublicKeyInfo.
    ///
    /// - Throws: `TLSTrustError` `.unsupported` when OpenSSL does not know the key's algorithm,
    ///   `.malformedKey` when it cannot decode the key (with OpenSSL's reason).
    ///
    /// - Parameter decoderOnly: `d2i_PUBKEY` even for a key that could be built from its parts (for
    ///   tests comparing the two ways).
    init(_ key: PublicKey, decoderOnly: Bool = false) throws {
        _ = OpenSSLLibrary.initialized
        if !decoderOnly, let parts = OpenSSLKeyParts(key) {
            guard let built = parts.makeKey() else {
                let reason = OpenSSLLibrary.drainErrors()
                throw TLSTrustError(.malformedKey, "OpenSSL cannot decode the public key (\(key.algorithm)): \(reason)")
            }
            pkey = built
            restrictedToPSS = false
            return
        }
        let der = key.subjectPublicKeyInfoDER
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            let made = d2i_PUBKEY(nil, &cursor, buffer.count)
            if let cursor { consumed = cursor - base }
            return made
        }
        guard let parsed else {
            let reason = OpenSSLLibrary.drainErrors()
            if case .other = key.algorithm {
                throw TLSTrustError(.unsupported, "OpenSSL does not support this key (\(key.algorithm)): \(reason)")
            }
            throw TLSTrustError(.malformedKey, "OpenSSL cannot decode the public key (\(key.algorithm)): \(reason)")
        }
        guard consumed == der.count else {
            EVP_PKEY_free(parsed)
            throw TLSTrustError(.malformedKey, "OpenSSL: \(der.count - consumed) trailing bytes after the public key")
        }
        pkey = parsed
        restrictedToPSS = EVP_PKEY_get_base_id(parsed) == EVP_PKEY_RSA_PSS
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Whether the two hold the same key (`EVP_PKEY_eq`: same type, same parameters, same public key).
    func isSameKey(as other: OpenSSLVerificationKey) -> Bool { EVP_PKEY_eq(pkey, other.pkey) == 1 }

    private static func digest(_ algorithm: DigestAlgorithm) -> OpaquePointer? {
        switch algorithm {
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }

    /// One `EVP_DigestVerify` over `message`: PKCS#1 v1.5, PSS (MGF1 with the same digest, salt as
    /// long as the digest), ECDSA (DER signature), or Ed25519 (one-shot, no digest).
    ///
    /// - Returns: false for a wrong, empty or undecodable signature. The engine asks only for a
    ///   scheme its list pairs with this key's type.
    /// - Throws: `TLSTrustError` `.backendFailure` when OpenSSL cannot set up the operation (with
    ///   OpenSSL's reason); never for a bad signature.
    func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool {
        guard !signature.isEmpty else { return false }
        guard let ctx = EVP_MD_CTX_new() else {
            throw TLSTrustError(.backendFailure, "OpenSSL: EVP_MD_CTX_new failed: \(OpenSSLLibrary.drainErrors())")
        }
        defer { EVP_MD_CTX_free(ctx) }

        let md = scheme.digest.flatMap(Self.digest)  // nil for pure EdDSA: OpenSSL must be given no digest
        var pctx: OpaquePointer?  // owned by ctx
        guard EVP_DigestVerifyInit(ctx, &pctx, md, nil, pkey) == 1 else {
            let reason = OpenSSLLibrary.drainErrors()
            // An id-RSASSA-PSS key restricted to another digest refuses the set-up: no valid signature.
            if restrictedToPSS { return false }
            throw TLSTrustError(.backendFailure, "OpenSSL: EVP_DigestVerifyInit for \(scheme) failed: \(reason)")
        }
        if case .rsaPSS(let d) = scheme {
            guard let pctx,
                  EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, Int32(d.length)) == 1
            else {
                // An RSA-PSS key restricted to other parameters refuses these: no valid signature.
                _ = OpenSSLLibrary.drainErrors()
                return false
            }
        }

        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { tbs in
                // An empty message still gets a valid pointer (OpenSSL reads zero bytes from it).
                withUnsafePointer(to: 0 as UInt8) { empty in
                    EVP_DigestVerify(ctx, sig.baseAddress, sig.count, tbs.baseAddress ?? empty, tbs.count)
                }
            }
        }
        // 0 = wrong signature, < 0 = undecodable signature: both leave errors on this thread's queue.
        _ = OpenSSLLibrary.drainErrors()
        return result == 1
    }
}

/// The parts of an RSA or EC public key from which OpenSSL can build it without its decoder, as
/// the core parsed and checked them; nil for anything else, which then takes `d2i_PUBKEY`:
/// - RSA (rsaEncryption): the modulus and exponent (`PublicKey/rsaMagnitudes`: positive,
///   minimally encoded, parameters NULL or absent). id-RSASSA-PSS keys keep their restrictions
///   through the decoder.
/// - EC: a P-256, P-384 or P-521 named curve (nothing else in the parameters) and an uncompressed
///   point (`04‖X‖Y`) of the curve's length. Whether the point lies on the curve is OpenSSL's
///   check (EC_POINT_oct2point), as under `d2i_PUBKEY`.
struct OpenSSLKeyParts {
    enum Parts {
        case rsa(modulus: ArraySlice<UInt8>, exponent: ArraySlice<UInt8>)
        case ec(Curve, point: ArraySlice<UInt8>)
    }

    /// The curves built without the decoder, each with its parameters-only template key.
    enum Curve {
        case p256, p384, p521

        init?(name: String) {
            switch name {
            case "P-256": self = .p256
            case "P-384": self = .p384
            case "P-521": self = .p521
            default: return nil
            }
        }

        /// The length of an uncompressed point: 04‖X‖Y.
        var pointLength: Int {
            switch self {
            case .p256: 65
            case .p384: 97
            case .p521: 133
            }
        }

        /// A key of the curve's parameters alone, made once per process and then only copied
        /// (`EVP_PKEY_dup` reads it), never changed: shared by every thread.
        var parameters: OpaquePointer? {
            switch self {
            case .p256: Self.p256Parameters.pointer
            case .p384: Self.p384Parameters.pointer
            case .p521: Self.p521Parameters.pointer
            }
        }

        private static let p256Parameters = Template(COpenSSL_EC_parameters_key("P-256"))
        private static let p384Parameters = Template(COpenSSL_EC_parameters_key("P-384"))
        private static let p521Parameters = Template(COpenSSL_EC_parameters_key("P-521"))

        /// A template `EVP_PKEY`, kept for the life of the process.
        private struct Template: @unchecked Sendable {  // never modified after creation; only read (copied)
            let pointer: OpaquePointer?
            init(_ pointer: OpaquePointer?) {
                self.pointer = pointer
                _ = OpenSSLLibrary.drainErrors()
            }
        }
    }

    let parts: Parts

    init?(_ key: PublicKey) {
        switch key.algorithm {
        case .rsa:
            guard let numbers = key.rsaMagnitudes, !numbers.isRSASSAPSS else { return nil }
            parts = .rsa(modulus: numbers.modulus, exponent: numbers.exponent)
        case .ec(let name):
            let point = key.subjectPublicKeyBytes
            guard let curve = Curve(name: name), point.count == curve.pointLength, point.first == 0x04 else { return nil }
            parts = .ec(curve, point: point)
        default:
            return nil
        }
    }

    /// The key, or nil with OpenSSL's errors queued.
    func makeKey() -> OpaquePointer? {
        switch parts {
        case .rsa(let modulus, let exponent):
            return modulus.withUnsafeBufferPointer { n in
                exponent.withUnsafeBufferPointer { e in
                    COpenSSL_RSA_public_key(n.baseAddress, n.count, e.baseAddress, e.count)
                }
            }
        case .ec(let curve, let point):
            guard let parameters = curve.parameters else { return nil }
            return point.withUnsafeBufferPointer { p in
                COpenSSL_EC_public_key(parameters, p.baseAddress, p.count)
            }
        }
    }
}
