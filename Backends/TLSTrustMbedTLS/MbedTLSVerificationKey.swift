internal import CMbedTLS
import TLSTrust

/// A subject public key imported into mbedTLS once (`mbedtls_pk_parse_public_key`), for the
/// engine's signature checks: the message is hashed with `mbedtls_md`, then verified with
/// `mbedtls_pk_verify` (PKCS#1 v1.5, ECDSA) or `mbedtls_pk_verify_ext` (RSA-PSS).
///
/// Thread safety: mbedTLS 2.28 only reads a public-key context while verifying, with two
/// exceptions, both handled: an RSA context caches a Montgomery constant on first use, and
/// `mbedtls_rsa_public` holds the context's own mutex (Debian builds with `MBEDTLS_THREADING_C`)
/// for the whole operation because of it, so threads sharing a key took turns. `init` computes the
/// constant (`CMbedTLS_rsa_precompute`), and each RSA verification runs on a context of its own
/// that borrows the key's values (`CMbedTLS_rsa_verify`), with no lock. An EC key caches its group's comb table
/// for the base point on first use without a lock. That table depends on the curve alone, so
/// `init` lends the key the table of a process-wide group of its curve, computed once per process
/// (`MbedTLSBasePointTable`), before the key is shared; only for a curve without such a group
/// does it compute the key's own (`CMbedTLS_warm_up_key`, a whole scalar multiplication).
/// Afterwards one key is shared read-only by every thread.
///
/// Importing validates the key as mbedTLS's parser does (`mbedtls_pk_parse_public_key`: for EC
/// keys `mbedtls_ecp_check_pubkey`, the point on the curve), whatever happens to the table: an
/// invalid point is refused at import.
final class MbedTLSVerificationKey: SignatureVerificationKey, @unchecked Sendable {  // pk context read-only after init (see above)
    private let pk: UnsafeMutablePointer<mbedtls_pk_context>
    private let type: mbedtls_pk_type_t
    /// The process-wide group whose base-point table this key's group borrows, if any.
    private let basePointTable: MbedTLSBasePointTable?

    /// Imports a DER SubjectPublicKeyInfo.
    ///
    /// - Throws: `TLSTrustError` `.unsupported` for keys mbedTLS 2.28 does not implement (Ed25519,
    ///   Ed448, id-RSASSA-PSS keys, unknown curves), `.malformedKey` when it cannot decode the key
    ///   (with mbedTLS's reason).
    init(_ key: PublicKey) throws {
        if let reason = mbedTLSLibrary.unusableReason { throw TLSTrustError(.backendFailure, reason) }
        let der = key.subjectPublicKeyInfoDER
        guard !der.isEmpty else { throw TLSTrustError(.malformedKey, "mbedTLS cannot decode an empty public key") }
        let pk = UnsafeMutablePointer<mbedtls_pk_context>.allocate(capacity: 1)
        mbedtls_pk_init(pk)
        let parsed = der.withUnsafeBufferPointer { mbedtls_pk_parse_public_key(pk, $0.baseAddress, $0.count) }
        var borrowed: MbedTLSBasePointTable?
        if parsed == 0, let table = MbedTLSBasePointTable.shared(for: CMbedTLS_comb_group_id(pk)),
           CMbedTLS_borrow_base_point_table(pk, table.group) == 0 {
            borrowed = table
        }
        var warmed = parsed == 0 && borrowed == nil ? CMbedTLS_warm_up_key(pk) : 0
        if parsed == 0 && warmed == 0 { warmed = CMbedTLS_rsa_precompute(pk) }
        guard parsed == 0, warmed == 0 else {
            mbedtls_pk_free(pk)
            pk.deallocate()
            if warmed != 0 {
                throw TLSTrustError(.backendFailure, "mbedTLS could not prepare the key (\(key.algorithm)): \(MbedTLSLibrary.errorText(warmed))")
            }
            let reason = MbedTLSLibrary.errorText(parsed)
            if MbedTLSParseFailure(code: parsed).isUnsupportedAlgorithm {
                throw TLSTrustError(.unsupported, "mbedTLS 2.28 does not support this key (\(key.algorithm)): \(reason)")
            }
            throw TLSTrustError(.malformedKey, "mbedTLS cannot decode the public key (\(key.algorithm)): \(reason)")
        }
        self.pk = pk
        self.type = mbedtls_pk_get_type(pk)
        self.basePointTable = borrowed
    }

    /// Whether the key's group verifies with the process-wide base-point table of its curve (tests).
    var borrowsBasePointTable: Bool { basePointTable != nil && CMbedTLS_has_comb_table(pk) != 0 }

    deinit {
        if let basePointTable { CMbedTLS_return_base_point_table(pk, basePointTable.group) }
        mbedtls_pk_free(pk)
        pk.deallocate()
    }

    private static func digest(_ algorithm: DigestAlgorithm) -> mbedtls_md_type_t {
        switch algorithm {
        case .sha256: return MBEDTLS_MD_SHA256
        case .sha384: return MBEDTLS_MD_SHA384
        case .sha512: return MBEDTLS_MD_SHA512
        }
    }

    /// Verifies one signature over `message`.
    ///
    /// - Returns: false for a wrong, empty or undecodable signature. The engine asks only for a
    ///   scheme its list pairs with this key's type.
    /// - Throws: `TLSTrustError` `.unsupported` for Ed25519, which mbedTLS 2.28 does not implement,
    ///   or a digest this mbedTLS build lacks.
    func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool {
        if scheme == .ed25519 {
            throw TLSTrustError(.unsupported, "mbedTLS 2.28 does not implement Ed25519 signatures")
        }
        guard let digest = scheme.digest, !signature.isEmpty else { return false }
        let md = Self.digest(digest)
        guard let info = mbedtls_md_info_from_type(md) else {
            throw TLSTrustError(.unsupported, "this mbedTLS build has no \(digest)")
        }

        var hash = [UInt8](repeating: 0, count: Int(MBEDTLS_MD_MAX_SIZE))
        let hashLength = Int(mbedtls_md_get_size(info))
        let hashed = message.withUnsafeBufferPointer { input in
            withUnsafePointer(to: 0 as UInt8) { empty in  // a valid pointer even for an empty message
                mbedtls_md(info, input.baseAddress ?? empty, input.count, &hash)
            }
        }
        guard hashed == 0 else {
            throw TLSTrustError(.backendFailure, "mbedtls_md failed: \(MbedTLSLibrary.errorText(hashed))")
        }

        let result: Int32 = signature.withUnsafeBufferPointer { sig in
            if type == MBEDTLS_PK_RSA {
                // Without the context's mutex (see the type's comment); the same checks as below.
                var pss: Int32 = 0
                if case .rsaPSS = scheme { pss = 1 }
                return CMbedTLS_rsa_verify(pk, pss, md, Int32(digest.length), hash, UInt32(hashLength), sig.baseAddress, sig.count)
            }
            if case .rsaPSS = scheme {
                var options = mbedtls_pk_rsassa_pss_options(mgf1_hash_id: md, expected_salt_len: Int32(digest.length))
                return mbedtls_pk_verify_ext(MBEDTLS_PK_RSASSA_PSS, &options, pk, md, hash, hashLength, sig.baseAddress, sig.count)
            }
            return mbedtls_pk_verify(pk, md, hash, hashLength, sig.baseAddress, sig.count)
        }
        return result == 0
    }
}

/// A process-wide mbedTLS group of one curve whose comb table for the base point is computed once,
/// for every key of that curve to borrow (`CMbedTLS_borrow_base_point_table`).
///
/// mbedTLS 2.28 keeps that table in each key's group and computes it on the group's first
/// multiplication of the base point: a P-256 key paid ~10 M instructions for it on import (the
/// warm-up that makes a shared key read-only), about half an ECDSA verification, although the
/// table is the same for every key of the curve. Now the first key of a curve pays it once per
/// process, and every other key none. The groups are never freed (one per curve used, a few
/// kilobytes each); the table is only read once computed.
final class MbedTLSBasePointTable: @unchecked Sendable {  // `group` is read-only after init
    let group: UnsafeMutablePointer<mbedtls_ecp_group>

    private init?(_ id: mbedtls_ecp_group_id) {
        let group = UnsafeMutablePointer<mbedtls_ecp_group>.allocate(capacity: 1)
        mbedtls_ecp_group_init(group)
        guard CMbedTLS_load_base_point_group(group, id) == 0 else {
            mbedtls_ecp_group_free(group)
            group.deallocate()
            return nil
        }
        self.group = group
    }

    /// The table of curve `id`, computed on first use (Swift's lazy globals run once, thread-safely);
    /// nil for curves the engine does not accept (their keys warm their own table).
    static func shared(for id: mbedtls_ecp_group_id) -> MbedTLSBasePointTable? {
        switch id {
        case MBEDTLS_ECP_DP_SECP256R1: mbedTLSP256BasePoint
        case MBEDTLS_ECP_DP_SECP384R1: mbedTLSP384BasePoint
        case MBEDTLS_ECP_DP_SECP521R1: mbedTLSP521BasePoint
        default: nil
        }
    }

    fileprivate static func make(_ id: mbedtls_ecp_group_id) -> MbedTLSBasePointTable? { MbedTLSBasePointTable(id) }
}

private let mbedTLSP256BasePoint = MbedTLSBasePointTable.make(MBEDTLS_ECP_DP_SECP256R1)
private let mbedTLSP384BasePoint = MbedTLSBasePointTable.make(MBEDTLS_ECP_DP_SECP384R1)
private let mbedTLSP521BasePoint = MbedTLSBasePointTable.make(MBEDTLS_ECP_DP_SECP521R1)
