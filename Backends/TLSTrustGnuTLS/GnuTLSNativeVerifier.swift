#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CGnuTLS
import TLSTrust

/// One run of `gnutls_x509_trust_list_verify_crt2` for a `TrustEvaluationRequest`: GnuTLS's own
/// verifier, with nothing added in Swift (the backend's native mode, for comparison with the engine).
///
/// The presented certificates go to GnuTLS as given (leaf first, then the intermediates in the
/// caller's order; GnuTLS sorts and trims the list itself), the host and the purpose as typed data.
/// GnuTLS answers with one OR of status bits for the whole chain; its verify-output callback, which
/// reports each certificate it checked together with the issuer it checked it against, supplies the
/// path it verified and, where a bit was raised for one certificate, that certificate's position.
///
/// What GnuTLS cannot be told — a verification date (it reads time only through the process-wide
/// `gnutls_global_set_time_function`) and a depth limit (its trust-list verifier has none) — is not
/// declared in the backend's capabilities, so the core refuses such requests before they get here.
struct GnuTLSNativeVerifier {
    /// No CRLs (TLSTrust passes none), and GnuTLS's `MEDIUM` profile — 112-bit keys and signature
    /// hashes, the bar of OpenSSL's security level 2 that the OpenSSL native verifier sets. SHA-1
    /// signatures stay refused (`GNUTLS_VERIFY_ALLOW_SIGN_WITH_SHA1` is not set).
    static let flags: UInt32 = GNUTLS_VERIFY_DISABLE_CRL_CHECKS.rawValue | CGnuTLS_profile_to_vflags(GNUTLS_PROFILE_MEDIUM)

    let request: TrustEvaluationRequest
    let anchors: GnuTLSAnchorStore

    func run(backendName: String) -> TrustEvaluation {
        func refuse(_ code: TrustFailureCode, _ message: String) -> TrustEvaluation {
            request.refusal(code, message, backendName: backendName)
        }
        guard GnuTLSLibrary.initialized else {
            return refuse(.internalError, "GnuTLS failed to initialise (gnutls_global_init)")
        }
        if case .dnsName(let name)? = request.host, name.utf8.contains(0) {
            return refuse(.invalidPolicy, "GnuTLS cannot check a host name containing a NUL byte")
        }

        // The presented chain, parsed by GnuTLS: the per-handshake cost.
        var presented: [GnuTLSCertificate] = []
        var byPointer = anchors.byPointer
        do {
            for certificate in [request.leaf] + request.intermediates {
                let parsed = try GnuTLSCertificate(derEncoded: certificate.derEncoded)
                presented.append(parsed)
                byPointer[UnsafeRawPointer(parsed.ref)] = certificate
            }
        } catch let error as TLSTrustError {
            return refuse(error.code == .malformedCertificate ? .malformedCertificate : .internalError, error.message)
        } catch {
            return refuse(.internalError, "\(error)")
        }

        let (result, status, steps) = withExtendedLifetime(presented) { verify(presented) }

        // The path GnuTLS verified: from the leaf, follow the issuer it checked each certificate against.
        var chain = [request.leaf]
        var pointers = [UnsafeRawPointer(presented[0].ref)]
        while let step = steps.first(where: { $0.certificate == pointers.last! }), let issuer = step.issuer,
              !pointers.contains(issuer), let certificate = byPointer[issuer] {
            chain.append(certificate)
            pointers.append(issuer)
        }

        var failures: [TrustFailure] = []
        if result < 0 {
            failures.append(TrustFailure(
                .internalError, certificateIndex: nil, libraryCode: Int(result),
                detail: "gnutls_x509_trust_list_verify_crt2: \(GnuTLSLibrary.errorText(result))"))
        }
        let bits = GnuTLSVerifyErrors.bits(of: status)
        for bit in bits where bit != GnuTLSVerifyErrors.invalid || bits.count == 1 {
            // GnuTLS checks the host name on the leaf only; other bits are placed where the callback
            // saw them: on the certificate being verified, which for "the signer is not a CA" means
            // the problem is the next one up.
            var index: Int? = bit == GnuTLSVerifyErrors.unexpectedOwner ? 0 : pointers.firstIndex { pointer in
                steps.contains { $0.certificate == pointer && $0.output & bit != 0 }
            }
            if bit == GnuTLSVerifyErrors.signerNotCA, let child = index, child + 1 < chain.count { index = child + 1 }
            failures.append(TrustFailure(
                GnuTLSVerifyErrors.portableCode(bit, host: request.host), certificateIndex: index,
                libraryCode: Int(bit), detail: GnuTLSVerifyErrors.text(bit)))
        }
        return request.evaluation(chain: chain, failures: failures, backendName: backendName)
    }

    /// Calls `gnutls_x509_trust_list_verify_crt2` and collects its verify-output reports.
    ///
    /// - Returns: GnuTLS's return value, the status bits it set, and each (certificate, issuer,
    ///   per-certificate status) report, in the order GnuTLS made them.
    private func verify(_ presented: [GnuTLSCertificate]) -> (result: Int32, status: UInt32, steps: [GnuTLSVerifyStep]) {
        var chain: [gnutls_x509_crt_t?] = presented.map(\.ref)

        var hostBytes: [UInt8] = []
        var hostType: gnutls_vdata_types_t?
        switch request.host {
        case .dnsName(let name)?:  // an absolute name's trailing dot is already dropped by HostIdentity
            hostBytes = Array(name.utf8) + [0]  // NUL-terminated
            hostType = GNUTLS_DT_DNS_HOSTNAME
        case .ipAddress(let ip)?:
            hostBytes = ip.bytes  // 4 or 16 raw bytes, matched against iPAddress names only
            hostType = GNUTLS_DT_IP_ADDRESS
        case nil:
            break
        }
        var purposeBytes: [UInt8] = request.purpose.oid.map { Array($0.utf8) + [0] } ?? []

        let recorder = GnuTLSVerifyOutputRecorder()
        var status: UInt32 = 0
        let result = recorder.collecting {
            hostBytes.withUnsafeMutableBufferPointer { host in
                purposeBytes.withUnsafeMutableBufferPointer { purpose in
                    var data: [gnutls_typed_vdata_st] = []
                    if let hostType {
                        let size = hostType == GNUTLS_DT_IP_ADDRESS ? UInt32(host.count) : 0
                        data.append(gnutls_typed_vdata_st(type: hostType, data: host.baseAddress, size: size))
                    }
                    if !purpose.isEmpty {
                        data.append(gnutls_typed_vdata_st(type: GNUTLS_DT_KEY_PURPOSE_OID, data: purpose.baseAddress, size: 0))
                    }
                    return data.withUnsafeMutableBufferPointer { typed in
                        gnutls_x509_trust_list_verify_crt2(
                            anchors.list, &chain, UInt32(chain.count), typed.baseAddress, UInt32(typed.count),
                            Self.flags, &status, GnuTLSVerifyOutputRecorder.callback)
                    }
                }
            }
        }
        return (result, status, recorder.steps)
    }
}

/// One report of GnuTLS's verify-output callback: a certificate, the issuer it was checked
/// against (nil when none was found) and that certificate's status bits.
struct GnuTLSVerifyStep {
    let certificate: UnsafeRawPointer
    let issuer: UnsafeRawPointer?
    let output: UInt32
}

/// Collects the reports of `gnutls_verify_output_function` for one verification.
///
/// The callback has no user-data argument, so the recorder of the verification running on the
/// current thread is found through a thread-specific slot (GnuTLS calls back synchronously, on the
/// calling thread). Concurrent verifications on other threads each see their own recorder.
final class GnuTLSVerifyOutputRecorder {
    private(set) var steps: [GnuTLSVerifyStep] = []

    private static let slot: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Runs `body` with this recorder installed for the current thread.
    func collecting<R>(_ body: () -> R) -> R {
        let previous = pthread_getspecific(Self.slot)
        pthread_setspecific(Self.slot, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.slot, previous) }
        return withExtendedLifetime(self) { body() }
    }

    static let callback: @convention(c) (gnutls_x509_crt_t?, gnutls_x509_crt_t?, gnutls_x509_crl_t?, UInt32) -> Int32 = { cert, issuer, _, output in
        guard let cert, let raw = pthread_getspecific(GnuTLSVerifyOutputRecorder.slot) else { return 0 }
        let recorder = Unmanaged<GnuTLSVerifyOutputRecorder>.fromOpaque(raw).takeUnretainedValue()
        recorder.steps.append(GnuTLSVerifyStep(
            certificate: UnsafeRawPointer(cert), issuer: issuer.map { UnsafeRawPointer($0) }, output: output))
        return 0
    }
}
