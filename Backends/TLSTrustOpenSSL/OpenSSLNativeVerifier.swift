internal import COpenSSL
import TLSTrust

/// One run of `X509_verify_cert` for a `TrustEvaluationRequest`: OpenSSL's own verifier, with
/// nothing added in Swift (the backend's native mode, for comparison with the engine).
///
/// Translates the request into an `X509_VERIFY_PARAM` (time, host or IP, purpose, depth, partial
/// chains, security level, CRL checking over the request's CRLs — `OpenSSLNativeRevocation`), collects *every* error through a verify callback rather than stopping
/// at the first, and reads back the chain OpenSSL built. The verdict is OpenSSL's alone; where it
/// differs from the engine's is listed in `docs/backends.md`.
struct OpenSSLNativeVerifier {
    /// Minimum security level for signatures and keys in the chain: 2 means 112-bit security, so
    /// RSA and DSA keys under 2048 bits and SHA-1 (or MD5) signatures are refused, as the CA/Browser
    /// Forum baseline requirements demand. Plain `X509_verify_cert` checks no level at all unless
    /// told to (libssl sets one only inside a handshake).
    static let authenticationLevel: Int32 = 2

    let request: TrustEvaluationRequest
    let anchors: OpenSSLAnchorStore

    func run(backendName: String) -> TrustEvaluation {
        var failures: [TrustFailure] = []
        func fail(_ code: TrustFailureCode, _ message: String, index: Int? = nil) -> TrustEvaluation {
            request.evaluation(
                chain: [request.leaf],
                failures: [TrustFailure(code, certificateIndex: index, detail: message)],
                backendName: backendName)
        }

        // Parse the presented chain: this is the per-handshake cost.
        let leaf: OpenSSLCertificate
        var intermediates: [OpenSSLCertificate] = []
        var inputs: [UnsafeRawPointer: Certificate] = [:]
        do {
            leaf = try OpenSSLCertificate(derEncoded: request.leaf.derEncoded)
            inputs[UnsafeRawPointer(leaf.ref)] = request.leaf
            for cert in request.intermediates {
                let x = try OpenSSLCertificate(derEncoded: cert.derEncoded)
                intermediates.append(x)
                inputs[UnsafeRawPointer(x.ref)] = cert
            }
        } catch let error as TLSTrustError {
            return fail(.malformedCertificate, error.message)
        } catch {
            return fail(.internalError, "\(error)")
        }

        guard let untrusted = COpenSSL_sk_X509_new_null() else { return fail(.internalError, "OpenSSL: out of memory") }
        defer { COpenSSL_sk_X509_free(untrusted) }  // the X509s are owned by `intermediates`
        for x in intermediates where COpenSSL_sk_X509_push(untrusted, x.ref) <= 0 {
            return fail(.internalError, "OpenSSL: out of memory")
        }

        // Revocation: the request's CRLs, owned by this stack for the whole verification
        // (`X509_STORE_CTX_set0_crls` borrows it; made before the context, so freed after it).
        // Given to the context, never to the shared anchor store, which is cached per anchor set
        // and used by concurrent evaluations.
        let crlStack: OpaquePointer?
        switch OpenSSLNativeRevocation.crlStack(for: request) {
        case .success(let stack): crlStack = stack
        case .failure(let refusal): return fail(refusal.code, refusal.message)
        }
        defer { if let crlStack { COpenSSL_sk_X509_CRL_pop_free(crlStack) } }

        guard let ctx = X509_STORE_CTX_new() else { return fail(.internalError, "OpenSSL: out of memory") }
        defer { X509_STORE_CTX_free(ctx) }
        guard X509_STORE_CTX_init(ctx, anchors.store, leaf.ref, untrusted) == 1 else {
            return fail(.internalError, "OpenSSL: X509_STORE_CTX_init failed: \(OpenSSLLibrary.drainErrors())")
        }
        guard let param = X509_STORE_CTX_get0_param(ctx) else { return fail(.internalError, "OpenSSL: no verify parameters") }

        // A path ends at any anchor, self-signed or not (SecTrustSetAnchorCertificates semantics).
        X509_VERIFY_PARAM_set_flags(param, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        X509_VERIFY_PARAM_set_time(param, time_t(request.verificationTime))
        X509_VERIFY_PARAM_set_auth_level(param, Self.authenticationLevel)
        if let depth = request.maximumIntermediates {
            X509_VERIFY_PARAM_set_depth(param, Int32(clamping: depth))
        }
        switch request.purpose {
        case .serverAuth: X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER)
        case .clientAuth: X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_CLIENT)
        case .any: break
        }
        switch request.host {
        case .dnsName(let name)?:  // an absolute name's trailing dot is already dropped by HostIdentity
            // Wildcards only as a whole left-most label. OpenSSL consults the subject CN only when
            // the leaf has no DNS subjectAltName, and only if the request allows that fallback.
            var hostFlags = UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS)
            if !request.allowsCommonNameFallback { hostFlags |= UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT) }
            X509_VERIFY_PARAM_set_hostflags(param, hostFlags)
            guard !name.utf8.contains(0), X509_VERIFY_PARAM_set1_host(param, name, name.utf8.count) == 1 else {
                return fail(.invalidPolicy, "OpenSSL refuses the host name '\(name)'")
            }
        case .ipAddress(let ip)?:
            guard X509_VERIFY_PARAM_set1_ip(param, ip.bytes, ip.bytes.count) == 1 else {
                return fail(.invalidPolicy, "OpenSSL refuses the IP address \(ip)")
            }
        case nil:
            break
        }
        if let refusal = applyIdentityAndPolicies(request, to: param, fail: fail) { return refusal }

        if let crlStack {  // CRL checking only when the request asks for revocation
            X509_STORE_CTX_set0_crls(ctx, crlStack)
            X509_VERIFY_PARAM_set_flags(param, OpenSSLNativeRevocation.flags(for: request.revocation.policy))
        }

        let run = OpenSSLRecordedVerification(running: ctx)
        let verified = run.result
        let queued = OpenSSLLibrary.drainErrors()

        // When the depth limit stops path building, OpenSSL also reports the issuer it did not look
        // for as missing; that is a consequence, not a second reason, so only the limit is kept.
        let tooLong = run.errors.contains { $0.error == X509_V_ERR_CERT_CHAIN_TOO_LONG }
        let anchorDepth = anchorDepth(ctx, chainLength: run.chainLength)
        let unusableCRLDepths = OpenSSLNativeRevocation.unusableCRLDepths(run.errors)
        for (error, depth) in run.errors {
            if tooLong && OpenSSLVerifyErrors.portableCode(error) == .unknownIssuer { continue }
            if crlStack != nil, OpenSSLNativeRevocation.isIgnored(
                error, depth: Int(depth), anchorDepth: anchorDepth, unusableCRLDepths: unusableCRLDepths,
                mode: request.revocation.policy.mode) { continue }
            failures.append(TrustFailure(
                OpenSSLVerifyErrors.portableCode(error), certificateIndex: Int(depth),
                libraryCode: Int(error), detail: OpenSSLVerifyErrors.text(error)))
        }
        if verified != 1 && failures.isEmpty {
            // Fail closed: OpenSSL refused without calling back (an internal error).
            let error = X509_STORE_CTX_get_error(ctx)
            failures.append(TrustFailure(
                error == X509_V_OK ? .internalError : OpenSSLVerifyErrors.portableCode(error), certificateIndex: nil,
                libraryCode: Int(error), detail: queued.isEmpty ? OpenSSLVerifyErrors.text(error) : queued))
        }

        return request.evaluation(chain: builtChain(ctx, inputs: inputs), failures: failures, backendName: backendName)
    }

    /// The depth of the chain's last certificate when it is one of the request's anchors (OpenSSL
    /// found a trusted path), else nil.
    private func anchorDepth(_ ctx: OpaquePointer, chainLength: Int) -> Int? {
        guard chainLength > 0, let stack = X509_STORE_CTX_get0_chain(ctx),
              let last = COpenSSL_sk_X509_value(stack, Int32(chainLength - 1)),
              anchors.byPointer[UnsafeRawPointer(last)] != nil else { return nil }
        return chainLength - 1
    }

    /// The chain OpenSSL built, as the caller's `Certificate` values where possible.
    private func builtChain(_ ctx: OpaquePointer, inputs: [UnsafeRawPointer: Certificate]) -> [Certificate] {
        guard let stack = X509_STORE_CTX_get0_chain(ctx) else { return [request.leaf] }
        var chain: [Certificate] = []
        for i in 0..<COpenSSL_sk_X509_num(stack) {
            guard let x = COpenSSL_sk_X509_value(stack, i) else { continue }
            let key = UnsafeRawPointer(x)
            if let known = inputs[key] ?? anchors.byPointer[key] {
                chain.append(known)
            } else if let der = OpenSSLCertificate.derEncoding(of: x), let cert = try? Certificate(derEncoded: der) {
                chain.append(cert)
            }
        }
        return chain.isEmpty ? [request.leaf] : chain
    }
}
