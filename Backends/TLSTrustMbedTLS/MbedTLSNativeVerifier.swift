internal import CMbedTLS
import TLSTrust

/// One call of `mbedtls_x509_crt_verify_with_profile` for a `TrustEvaluationRequest`: mbedTLS's own
/// verifier, with nothing added in Swift (the backend's native mode, for comparison with the engine).
///
/// The presented certificates are parsed as the library parses them and handed over in the given
/// order (leaf first), with mbedTLS's default profile and the DNS host as `cn`. A verify callback
/// records the chain mbedTLS built and each certificate's flags, without changing them.
///
/// The verifier itself checks no extended key usage; mbedTLS's TLS layer does, after it, on the
/// peer's certificate alone (`mbedtls_ssl_check_cert_usage` calls
/// `mbedtls_x509_crt_check_extended_key_usage` and sets `MBEDTLS_X509_BADCERT_EXT_KEY_USAGE`). A
/// requested purpose is honoured the same way, with the same library call, on the leaf.
///
/// What mbedTLS 2.28 cannot be told — a verification date (it reads the real clock), an IP address
/// (it has no IP matching) and a depth limit — is not declared in the backend's capabilities, so
/// the core refuses such requests.
struct MbedTLSNativeVerifier {
    let request: TrustEvaluationRequest
    let anchors: MbedTLSAnchorStore

    /// What the verify callback is shown, per depth (0 = leaf). An array, not a dictionary: the
    /// callback runs once per depth, and this is on the native mode's measured path.
    private final class ChainRecorder {
        var byDepth: [(certificate: UnsafeMutableRawPointer, flags: UInt32)?] = []
        func record(_ certificate: UnsafeMutableRawPointer, flags: UInt32, depth: Int) {
            guard depth >= 0, depth < 64 else { return }
            if byDepth.count <= depth { byDepth += Array(repeating: nil, count: depth + 1 - byDepth.count) }
            byDepth[depth] = (certificate, flags)
        }
    }

    func run(backendName: String) -> TrustEvaluation {
        func refuse(_ code: TrustFailureCode, _ message: String, index: Int? = nil, libraryCode: Int? = nil) -> TrustEvaluation {
            request.evaluation(
                chain: [request.leaf],
                failures: [TrustFailure(code, certificateIndex: index, libraryCode: libraryCode, detail: message)],
                backendName: backendName)
        }
        if let reason = mbedTLSLibrary.unusableReason { return refuse(.internalError, reason) }
        var hostname: String?
        switch request.host {
        case .dnsName(let name)?:
            guard !name.utf8.contains(0) else { return refuse(.invalidPolicy, "mbedTLS cannot check a host name containing a NUL byte") }
            hostname = name
        case .ipAddress?:
            return refuse(.unsupported, "mbedTLS 2.28 cannot match IP addresses")
        case nil:
            break
        }

        // The presented chain, parsed as the library parses it.
        var presented: [MbedTLSCertificate] = []
        for (index, certificate) in ([request.leaf] + request.intermediates).enumerated() {
            switch MbedTLSCertificate.parse(certificate, .strict) {
            case .success(let parsed):
                presented.append(parsed)
            case .failure(let failure):
                // An algorithm mbedTLS 2.28 does not implement (Ed25519) is not a verdict on the chain.
                let code: TrustFailureCode = failure.isUnsupportedAlgorithm ? .unsupported : .malformedCertificate
                return refuse(code, "mbedTLS cannot parse \(index == 0 ? "the leaf" : "intermediate \(index)"): \(failure.text)",
                              index: index == 0 ? 0 : nil, libraryCode: Int(failure.code))
            }
        }
        // A certificate mbedTLS shows the callback is one of the presented ones or an anchor:
        // looked up among the (few) presented ones first, then in the anchor store's index,
        // without copying that index per evaluation.
        func certificate(at address: UnsafeMutableRawPointer) -> Certificate? {
            presented.first { UnsafeMutableRawPointer($0.pointer) == address }?.certificate ?? anchors.byAddress[address]
        }

        let recorder = ChainRecorder()
        var flags: UInt32 = 0
        let status: Int32 = Self.withLinkedList(presented) { head in
            withExtendedLifetime(recorder) {
                let context = Unmanaged.passUnretained(recorder).toOpaque()
                let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<mbedtls_x509_crt>?, Int32, UnsafeMutablePointer<UInt32>?) -> Int32 = { context, crt, depth, flags in
                    guard let context, let crt, let flags else { return MBEDTLS_ERR_X509_BAD_INPUT_DATA }
                    let recorder = Unmanaged<ChainRecorder>.fromOpaque(context).takeUnretainedValue()
                    recorder.record(UnsafeMutableRawPointer(crt), flags: flags.pointee, depth: Int(depth))
                    return 0
                }
                // mbedTLS's default profile, as `mbedtls_x509_crt_verify` would use it.
                return withUnsafePointer(to: mbedtls_x509_crt_profile_default) { profile in
                    guard let hostname else {
                        return mbedtls_x509_crt_verify_with_profile(head, anchors.trustList, nil, profile, nil, &flags, callback, context)
                    }
                    return hostname.withCString { cn in
                        mbedtls_x509_crt_verify_with_profile(head, anchors.trustList, nil, profile, cn, &flags, callback, context)
                    }
                }
            }
        }
        guard status == 0 || status == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED else {
            return refuse(.internalError, "mbedtls_x509_crt_verify_with_profile: \(MbedTLSLibrary.errorText(status))", libraryCode: Int(status))
        }

        // The purpose, as mbedTLS's TLS layer checks it on the peer certificate.
        let purposeFlag: UInt32
        switch request.purpose {
        case .serverAuth: purposeFlag = CMbedTLS_check_extended_key_usage(presented[0].pointer, 1) == 0 ? 0 : UInt32(MBEDTLS_X509_BADCERT_EXT_KEY_USAGE)
        case .clientAuth: purposeFlag = CMbedTLS_check_extended_key_usage(presented[0].pointer, 2) == 0 ? 0 : UInt32(MBEDTLS_X509_BADCERT_EXT_KEY_USAGE)
        case .any: purposeFlag = 0
        }
        if let leaf = recorder.byDepth.first ?? nil { recorder.byDepth[0] = (leaf.certificate, leaf.flags | purposeFlag) }
        flags |= purposeFlag
        let failed = status != 0 || purposeFlag != 0

        // The chain mbedTLS built, leaf first, and each certificate's flags at its depth.
        var chain: [Certificate] = []
        var failures: [TrustFailure] = []
        for depth in 0..<recorder.byDepth.count {
            guard let item = recorder.byDepth[depth], let certificate = certificate(at: item.certificate) else { break }
            chain.append(certificate)
            for bit in MbedTLSVerifyFlag.bits(of: item.flags) {
                failures.append(MbedTLSVerifyFlag.failure(bit, at: depth))
            }
        }
        if chain.first != request.leaf { chain = [request.leaf] }
        if failed && failures.isEmpty {
            // Fail closed: mbedTLS refused without showing a flagged certificate to the callback.
            let bits = MbedTLSVerifyFlag.bits(of: flags)
            failures = bits.map { MbedTLSVerifyFlag.failure($0, at: nil) }
            if failures.isEmpty {
                failures.append(TrustFailure(.internalError, certificateIndex: nil, libraryCode: Int(status),
                                             detail: MbedTLSLibrary.errorText(status)))
            }
        }
        return request.evaluation(chain: chain, failures: failures, backendName: backendName)
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
