internal import CGnuTLS
import TLSTrust

/// One evaluation of a `TrustEvaluationRequest` with GnuTLS.
///
/// 1. Parses the presented certificates with GnuTLS (the per-handshake cost).
/// 2. Builds the path in Swift (``GnuTLSPathBuilder``), because GnuTLS reports no chain.
/// 3. Runs the per-certificate checks (``GnuTLSChainChecks``), which say where each problem is.
/// 4. Has GnuTLS verify that same path with `gnutls_x509_trust_list_verify_crt2` against the
///    prepared trust list, with the host and purpose as typed data.
/// 5. Merges: every finding of step 3, plus any status bit GnuTLS raised that no finding explains.
///    Trust therefore needs both GnuTLS's verdict and our checks to be clean (fail closed).
///
/// **The verification date.** GnuTLS reads the time only through the process-wide
/// `gnutls_global_set_time_function`, which cannot carry a per-evaluation date safely: it would
/// replace any time function the application or another library installed (and be replaced by
/// theirs), and it serves every GnuTLS call on every thread. Instead the library's time checks are
/// switched off for this call (`GNUTLS_VERIFY_DISABLE_TIME_CHECKS`,
/// `GNUTLS_VERIFY_DISABLE_TRUSTED_TIME_CHECKS`) and step 3 judges every certificate, anchor
/// included, at `request.verificationDate` from the validity times GnuTLS parsed. Concurrent
/// evaluations with different dates share no state at all. GnuTLS would in any case stop at the
/// first expired certificate, while step 3 reports each one at its depth.
struct GnuTLSVerification {
    /// The flags of the whole-chain verification: no time checks (see above), no CRLs (TLSTrust
    /// passes none), and GnuTLS's `MEDIUM` profile — 112-bit keys and signature hashes, the same
    /// bar as OpenSSL's security level 2 that the OpenSSL backend sets. SHA-1 signatures stay
    /// refused (`GNUTLS_VERIFY_ALLOW_SIGN_WITH_SHA1` is not set).
    static let chainFlags: UInt32 =
        GNUTLS_VERIFY_DISABLE_TIME_CHECKS.rawValue | GNUTLS_VERIFY_DISABLE_TRUSTED_TIME_CHECKS.rawValue
        | GNUTLS_VERIFY_DISABLE_CRL_CHECKS.rawValue | CGnuTLS_profile_to_vflags(GNUTLS_PROFILE_MEDIUM)

    let request: TrustEvaluationRequest
    let anchors: GnuTLSAnchorStore

    func run(backendName: String) -> TrustEvaluation {
        func refuse(_ code: TrustFailureCode, _ message: String, nativeCode: Int = 0) -> TrustEvaluation {
            request.evaluation(
                chain: [request.leaf],
                failures: [TrustFailure(code, certificateIndex: nil, nativeCode: nativeCode, nativeDescription: message)],
                backendName: backendName)
        }

        if case .dnsName(let name)? = request.host, name.utf8.contains(0) {
            return refuse(.invalidPolicy, "GnuTLS cannot check a host name containing a NUL byte")
        }

        // 1. Parse the presented chain.
        let leaf: GnuTLSCertificate
        var intermediates: [(certificate: Certificate, parsed: GnuTLSCertificate)] = []
        do {
            leaf = try GnuTLSCertificate(derEncoded: request.leaf.derEncoded)
            for certificate in request.intermediates {
                intermediates.append((certificate, try GnuTLSCertificate(derEncoded: certificate.derEncoded)))
            }
        } catch let error as TLSTrustError {
            return refuse(error.code == .malformedCertificate ? .malformedCertificate : .internalError, error.message)
        } catch {
            return refuse(.internalError, "\(error)")
        }

        // 2. Build the path.
        let depth = min(max(request.maximumIntermediates ?? GnuTLSPathBuilder.defaultMaximumIntermediates, 0), Int(Int32.max) / 2)
        let path = GnuTLSPathBuilder(
            anchors: anchors, intermediates: intermediates, maximumIntermediates: depth,
            verificationTime: request.verificationTime
        ).build(leaf: request.leaf, parsedLeaf: leaf)

        // 3. Our own findings, each at its depth.
        var failures = GnuTLSChainChecks(request: request, path: path, maximumIntermediates: depth).run()

        // 4. GnuTLS's verdict on the same path.
        let (result, status) = withExtendedLifetime((leaf, intermediates)) { verifyWithGnuTLS(path) }

        // 5. Nothing GnuTLS refused may pass.
        if result < 0 {
            failures.append(TrustFailure(
                .internalError, certificateIndex: nil, nativeCode: Int(result),
                nativeDescription: "gnutls_x509_trust_list_verify_crt2: \(GnuTLSLibrary.errorText(result))"))
        }
        for bit in GnuTLSVerifyErrors.bits(of: status) where bit != GnuTLSVerifyErrors.invalid {
            guard !failures.contains(where: { $0.nativeCode == Int(bit) }) else { continue }
            // A path we cut at the depth limit ends, for GnuTLS, at an unknown issuer.
            if bit == GnuTLSVerifyErrors.signerNotFound && path.exceedsDepth { continue }
            // GnuTLS checks the host name on the end certificate only, and refuses as "not a CA" the
            // first issuer without basicConstraints cA:TRUE; other bits name no certificate.
            let index: Int? = switch bit {
            case GnuTLSVerifyErrors.unexpectedOwner: 0
            case GnuTLSVerifyErrors.signerNotCA: path.certificates.indices.dropFirst().first { !path.certificates[$0].isCertificateAuthority }
            default: nil
            }
            failures.append(TrustFailure(
                GnuTLSVerifyErrors.portableCode(forUnexplained: bit, host: request.host), certificateIndex: index,
                nativeCode: Int(bit), nativeDescription: "\(GnuTLSVerifyErrors.text(bit)) (reported by GnuTLS for the chain)"))
        }
        if status != 0 && failures.isEmpty {
            failures.append(TrustFailure(
                .internalError, certificateIndex: nil, nativeCode: Int(status),
                nativeDescription: GnuTLSVerifyErrors.fullText(status)))
        }

        return request.evaluation(chain: path.certificates, failures: failures, backendName: backendName)
    }

    /// Runs `gnutls_x509_trust_list_verify_crt2` on the built path, leaf first. When the path
    /// reached an anchor, the anchor itself is left out: GnuTLS finds it in the trust list (and a
    /// leaf that is an anchor is passed alone, which GnuTLS trusts as present in the list).
    ///
    /// - Returns: GnuTLS's return value and the status bits it set.
    private func verifyWithGnuTLS(_ path: GnuTLSPath) -> (result: Int32, status: UInt32) {
        let submitted = path.end == .anchor && path.count > 1 ? Array(path.parsed.dropLast()) : path.parsed
        var chain: [gnutls_x509_crt_t?] = submitted.map(\.ref)

        var hostBytes: [UInt8] = []
        var hostType: gnutls_vdata_types_t?
        switch request.host {
        case .dnsName(let name)?:  // an absolute name's trailing dot is already dropped by HostIdentity
            hostBytes = Array(name.utf8) + [0]  // NUL-terminated; GnuTLS matches by RFC 6125
            hostType = GNUTLS_DT_DNS_HOSTNAME
        case .ipAddress(let ip)?:
            hostBytes = ip.bytes  // 4 or 16 raw bytes, matched against iPAddress names only
            hostType = GNUTLS_DT_IP_ADDRESS
        case nil:
            break
        }
        var purposeBytes: [UInt8] = request.purpose.oid.map { Array($0.utf8) + [0] } ?? []

        var status: UInt32 = 0
        let result = hostBytes.withUnsafeMutableBufferPointer { host in
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
                        Self.chainFlags, &status, nil)
                }
            }
        }
        return (result, status)
    }
}
