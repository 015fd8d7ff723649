internal import CGnuTLS
import TLSTrust

/// A prepared GnuTLS trust list (`gnutls_x509_trust_list_t`) holding a set of anchors, shared by
/// all native evaluations that use them.
///
/// Ownership: each anchor is parsed once into a `GnuTLSCertificate`, which owns it; the trust list
/// only borrows the pointers (`gnutls_x509_trust_list_add_cas` without `GNUTLS_TL_NO_DUPLICATES`,
/// released with `gnutls_x509_trust_list_deinit(list, 0)`, which frees the list but not the
/// certificates). `deinit` frees the list first; the owners are released after it. We do not pass
/// `GNUTLS_TL_NO_DUPLICATES` because with it GnuTLS deinitialises a duplicate it replaces and then
/// requires `deinit(list, 1)` — two owners for one pointer. Duplicates are removed here instead,
/// by DER, before anything is added.
///
/// Because the list borrows our pointers, GnuTLS's verify-output callback names an anchor by the
/// very pointer we hold, which lets `byPointer` map the path GnuTLS verified back to the
/// caller's `Certificate` values.
public final class GnuTLSAnchorStore: TrustAnchorStore, @unchecked Sendable {  // immutable after init; GnuTLS only reads a trust list and its certificates while verifying
    let list: gnutls_x509_trust_list_t
    public let certificates: [Certificate]
    /// The parsed anchors, in the order of `certificates`; they own the pointers the list borrows.
    let parsed: [GnuTLSCertificate]
    /// Each anchor by the address of its `gnutls_x509_crt_t`.
    let byPointer: [UnsafeRawPointer: Certificate]

    init(_ anchors: [Certificate]) throws {
        _ = GnuTLSLibrary.initialized
        var unique: [Certificate] = []
        var seen = Set<Certificate>()
        for anchor in anchors where seen.insert(anchor).inserted { unique.append(anchor) }

        // Parse everything before creating the list, so a refusal leaks nothing.
        let parsed = try unique.map { try GnuTLSCertificate(derEncoded: $0.derEncoded) }

        var made: gnutls_x509_trust_list_t?
        let created = gnutls_x509_trust_list_init(&made, 0)
        guard created >= 0, let made else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_x509_trust_list_init failed: \(GnuTLSLibrary.errorText(created))")
        }
        if !parsed.isEmpty {
            var refs: [gnutls_x509_crt_t?] = parsed.map(\.ref)
            let added = gnutls_x509_trust_list_add_cas(made, &refs, UInt32(refs.count), 0)
            guard added == Int32(refs.count) else {
                gnutls_x509_trust_list_deinit(made, 0)
                let reason = added < 0 ? GnuTLSLibrary.errorText(added) : "only \(added) of \(refs.count) added"
                throw TLSTrustError(.backendFailure, "GnuTLS: cannot add the anchors to a trust list: \(reason)")
            }
        }
        self.list = made
        self.certificates = unique
        self.parsed = parsed
        self.byPointer = Dictionary(uniqueKeysWithValues: zip(parsed.map { UnsafeRawPointer($0.ref) }, unique))
    }

    deinit { gnutls_x509_trust_list_deinit(list, 0) }
}
