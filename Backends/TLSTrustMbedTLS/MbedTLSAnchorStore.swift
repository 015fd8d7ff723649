internal import CMbedTLS
import TLSTrust

/// The anchors as one mbedTLS CA list (`mbedtls_x509_crt` chained through `next`), the form
/// `mbedtls_x509_crt_verify_with_profile` takes as `trust_ca`.
///
/// Built once per anchor set and then shared by every evaluation, concurrently. That is safe
/// because after `init` nothing writes to it: verification only reads `trust_ca` (names, keys,
/// raw DER; checked against mbedTLS 2.28.3's x509_crt.c), with one exception that `init`
/// removes — see `CMbedTLS_warm_up_key` (an EC key caches its comb table on first use).
final class MbedTLSAnchorStore: TrustAnchorStore, @unchecked Sendable {
    // @unchecked Sendable: the C list is immutable after init (EC comb tables are precomputed
    // there), and mbedTLS only reads it during verification.

    let certificates: [Certificate]
    /// Head of the mbedTLS list; owned, freed in deinit. Nil when no anchor could be parsed.
    private let head: UnsafeMutablePointer<mbedtls_x509_crt>
    private let isEmpty: Bool
    /// The parsed anchors, in list order.
    let parsed: [MbedTLSCertificateView]
    /// Anchors mbedTLS could not parse, with why (an Ed25519 root, say). A path may still end at
    /// one of them (matched by name); it is then untrusted.
    let unparsed: [(certificate: Certificate, failure: MbedTLSParseFailure)]
    /// Every anchor's DER, for exact-match lookups (a leaf that is itself an anchor).
    let derSet: Set<[UInt8]>
    /// `mbedtls_x509_crt` address → parsed anchor, to map mbedTLS's chain back.
    let byAddress: [UnsafeMutablePointer<mbedtls_x509_crt>: MbedTLSCertificateView]

    init(_ anchors: [Certificate]) throws {
        certificates = anchors
        derSet = Set(anchors.map(\.derEncoded))
        head = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(head)
        var parsed: [MbedTLSCertificateView] = []
        var unparsed: [(Certificate, MbedTLSParseFailure)] = []
        var seen = Set<[UInt8]>()
        for anchor in anchors where seen.insert(anchor.derEncoded).inserted {
            let record = MbedTLSExtensionRecord()
            let status = MbedTLSParser.parse(anchor.derEncoded, appendingTo: head, record: record)
            guard status == 0 else {
                unparsed.append((anchor, MbedTLSParseFailure(code: status, text: MbedTLSLibrary.errorText(status))))
                continue
            }
            var last = head
            while let next = last.pointee.next { last = next }
            let warmed = CMbedTLS_warm_up_key(MbedTLSCertificateView.keyPointer(of: last))
            guard warmed == 0 else {
                mbedtls_x509_crt_free(head)
                head.deallocate()
                throw TLSTrustError(.backendFailure, "mbedTLS could not prepare the key of anchor \(anchor.subject): \(MbedTLSLibrary.errorText(warmed))")
            }
            parsed.append(MbedTLSCertificateView(pointer: last, certificate: anchor, extensions: record))
        }
        self.parsed = parsed
        self.unparsed = unparsed
        isEmpty = parsed.isEmpty
        byAddress = Dictionary(uniqueKeysWithValues: parsed.map { ($0.pointer, $0) })
    }

    /// The `trust_ca` argument: the list head, or nil when no anchor could be parsed (mbedTLS
    /// would otherwise look at an empty, zeroed certificate).
    var trustList: UnsafeMutablePointer<mbedtls_x509_crt>? { isEmpty ? nil : head }

    /// True when every EC anchor key carries its precomputed comb table (for tests).
    var allECKeysWarmedUp: Bool {
        parsed.allSatisfy { view in
            let key = MbedTLSCertificateView.keyPointer(of: view.pointer)
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
