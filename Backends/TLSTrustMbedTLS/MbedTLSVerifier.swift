internal import CMbedTLS

/// One call of `mbedtls_x509_crt_verify_with_profile`, with a verify callback that records the
/// chain mbedTLS built and the flags of each certificate in it.
struct MbedTLSVerification {
    struct Item {
        /// The certificate mbedTLS put at this depth (one of ours, or an anchor in the store).
        let pointer: UnsafeMutablePointer<mbedtls_x509_crt>
        /// Its flags as mbedTLS computed them, before the callback cleared the ones the backend
        /// judges itself (``MbedTLSVerifyFlag/judgedByBackend``).
        let flags: UInt32
    }

    /// The function's return value: 0, `MBEDTLS_ERR_X509_CERT_VERIFY_FAILED`, or a fatal error
    /// (then `items` is empty).
    let status: Int32
    /// Depth 0 (the first certificate passed) first; the chain as mbedTLS built it.
    let items: [Item]

    var completed: Bool { status == 0 || status == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED }
}

/// Records, per depth, what the verify callback is shown. Lives for one verification.
private final class ChainRecorder {
    var byDepth: [Int: MbedTLSVerification.Item] = [:]
}

enum MbedTLSVerifier {
    /// Verifies `list[0]` using `list[1...]` as the untrusted certificates, in that order, against
    /// `anchors`, with the backend's profile (``CMbedTLS_profile``).
    ///
    /// - Parameter hostname: passed to mbedTLS as `cn` for its own CN/SAN check, or nil.
    static func verify(_ list: [MbedTLSCertificate], anchors: MbedTLSAnchorStore, hostname: String?) -> MbedTLSVerification {
        guard !list.isEmpty else { return MbedTLSVerification(status: MBEDTLS_ERR_X509_BAD_INPUT_DATA, items: []) }
        let recorder = ChainRecorder()
        var flags: UInt32 = 0
        let status: Int32 = withLinkedList(list) { head in
            withExtendedLifetime(recorder) {
                let context = Unmanaged.passUnretained(recorder).toOpaque()
                let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<mbedtls_x509_crt>?, Int32, UnsafeMutablePointer<UInt32>?) -> Int32 = { context, crt, depth, flags in
                    guard let context, let crt, let flags else { return MBEDTLS_ERR_X509_BAD_INPUT_DATA }
                    let recorder = Unmanaged<ChainRecorder>.fromOpaque(context).takeUnretainedValue()
                    recorder.byDepth[Int(depth)] = MbedTLSVerification.Item(pointer: crt, flags: flags.pointee)
                    flags.pointee &= ~MbedTLSVerifyFlag.judgedByBackend
                    return 0
                }
                if let hostname {
                    return hostname.withCString { cn in
                        mbedtls_x509_crt_verify_with_profile(head, anchors.trustList, nil, CMbedTLS_profile(), cn, &flags, callback, context)
                    }
                }
                return mbedtls_x509_crt_verify_with_profile(head, anchors.trustList, nil, CMbedTLS_profile(), nil, &flags, callback, context)
            }
        }
        guard status == 0 || status == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED else {
            return MbedTLSVerification(status: status, items: [])
        }
        let items = (0..<recorder.byDepth.count).compactMap { recorder.byDepth[$0] }
        guard items.count == recorder.byDepth.count else {
            return MbedTLSVerification(status: MBEDTLS_ERR_X509_FATAL_ERROR, items: [])
        }
        return MbedTLSVerification(status: status, items: items)
    }

    /// Links the certificates through `next` in the given order for the duration of `body`, and
    /// unlinks them afterwards, so that each owner's `mbedtls_x509_crt_free` frees only its own.
    static func withLinkedList<R>(_ list: [MbedTLSCertificate], _ body: (UnsafeMutablePointer<mbedtls_x509_crt>) -> R) -> R {
        for (current, next) in zip(list, list.dropFirst()) { current.pointer.pointee.next = next.pointer }
        list.last?.pointer.pointee.next = nil
        defer { for certificate in list { certificate.pointer.pointee.next = nil } }
        return withExtendedLifetime(list) { body(list[0].pointer) }
    }
}
