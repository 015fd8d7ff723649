internal import CMbedTLS
import TLSTrust

/// The anchors as one mbedTLS CA list (`mbedtls_x509_crt` chained through `next`), the form
/// `mbedtls_x509_crt_verify_with_profile` takes as `trust_ca`, for the native verifier.
///
/// Each anchor is parsed as the library parses (`MbedTLSParsing/strict`); one mbedTLS cannot
/// read (an Ed25519 root, a CA with critical nameConstraints) is left out of the list, exactly as
/// `mbedtls_x509_crt_parse` skips it, and is listed in `unparsed`.
///
/// Built once per anchor set and then shared by every evaluation, concurrently. That is safe
/// because after `init` nothing writes to it: verification only reads `trust_ca` (names, keys,
/// raw DER; checked against mbedTLS 2.28's x509_crt.c), with one exception that `init`
/// removes — see `CMbedTLS_warm_up_key` (an EC key caches its comb table on first use).
public final class MbedTLSAnchorStore: TrustAnchorStore, @unchecked Sendable {
    // @unchecked Sendable: the C list is immutable after init (EC comb tables are precomputed
    // there), and mbedTLS only reads it during verification.

    public let certificates: [Certificate]
    /// Head of the mbedTLS list; owned, freed in deinit.
    private let head: UnsafeMutablePointer<mbedtls_x509_crt>
    private let isEmpty: Bool
    /// Anchors mbedTLS could not parse, with why.
    let unparsed: [(certificate: Certificate, failure: MbedTLSParseFailure)]
    /// Each parsed anchor by the address of its `mbedtls_x509_crt`, to map mbedTLS's chain back.
    let byAddress: [UnsafeMutableRawPointer: Certificate]

    init(_ anchors: [Certificate]) throws {
        certificates = anchors
        head = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(head)
        var byAddress: [UnsafeMutableRawPointer: Certificate] = [:]
        var unparsed: [(Certificate, MbedTLSParseFailure)] = []
        var seen = Set<[UInt8]>()
        for anchor in anchors where seen.insert(anchor.derEncoded).inserted {
            // On failure mbedTLS removes the half-parsed entry from the list itself.
            let status = MbedTLSParsing.strict.parse(anchor.derEncoded, appendingTo: head)
            guard status == 0 else {
                unparsed.append((anchor, MbedTLSParseFailure(code: status)))
                continue
            }
            var last = head
            while let next = last.pointee.next { last = next }
            let warmed = CMbedTLS_warm_up_key(MbedTLSCertificate.keyPointer(of: last))
            guard warmed == 0 else {
                mbedtls_x509_crt_free(head)
                head.deallocate()
                throw TLSTrustError(.backendFailure, "mbedTLS could not prepare the key of anchor \(anchor.subject): \(MbedTLSLibrary.errorText(warmed))")
            }
            byAddress[UnsafeMutableRawPointer(last)] = anchor
        }
        self.unparsed = unparsed
        self.byAddress = byAddress
        isEmpty = byAddress.isEmpty
    }

    /// The `trust_ca` argument: the list head, or nil when no anchor could be parsed (mbedTLS
    /// would otherwise look at an empty, zeroed certificate).
    var trustList: UnsafeMutablePointer<mbedtls_x509_crt>? { isEmpty ? nil : head }

    /// True when every EC anchor key carries its precomputed comb table (for tests).
    var allECKeysWarmedUp: Bool {
        byAddress.keys.allSatisfy { address in
            let key = MbedTLSCertificate.keyPointer(of: address.assumingMemoryBound(to: mbedtls_x509_crt.self))
            let type = mbedtls_pk_get_type(key)
            let isEC = type == MBEDTLS_PK_ECKEY || type == MBEDTLS_PK_ECDSA
            return !isEC || CMbedTLS_has_comb_table(key) != 0
        }
    }

    deinit {
        mbedtls_x509_crt_free(head)  // frees the whole list after the head
        head.deallocate()
    }
}
