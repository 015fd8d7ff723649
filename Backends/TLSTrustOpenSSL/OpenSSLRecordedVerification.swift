internal import COpenSSL

/// One run of OpenSSL's own `X509_verify_cert` that records every error instead of stopping at the
/// first: the callback notes each (error, depth) and tells OpenSSL to carry on, so one run reports
/// every problem, as `SecTrust` does. Trust is decided from the recorded list, never from the
/// callback's return value. Shared by the backend's native verifier and the differential tester's
/// reference verifier, so both read OpenSSL the same way.
package struct OpenSSLRecordedVerification {
    /// What `X509_verify_cert` returned (1 = OpenSSL trusts the path).
    package let result: Int32
    /// Every error the callback saw, in the order OpenSSL reported them.
    package let errors: [(error: Int32, depth: Int32)]
    /// How many certificates the chain OpenSSL built holds (0 when it built none).
    package let chainLength: Int

    /// Runs `X509_verify_cert` on an initialised context; the context's app-data slot is used for
    /// the duration of the synchronous call.
    package init(running ctx: OpaquePointer) {
        let recorder = Recorder()
        _ = COpenSSL_X509_STORE_CTX_set_app_data(ctx, Unmanaged.passUnretained(recorder).toOpaque())
        X509_STORE_CTX_set_verify_cb(ctx) { ok, ctx in
            guard ok == 0, let ctx, let raw = COpenSSL_X509_STORE_CTX_get_app_data(ctx) else { return ok }
            let recorder = Unmanaged<Recorder>.fromOpaque(raw).takeUnretainedValue()
            recorder.errors.append((X509_STORE_CTX_get_error(ctx), X509_STORE_CTX_get_error_depth(ctx)))
            return 1
        }
        result = withExtendedLifetime(recorder) { X509_verify_cert(ctx) }
        _ = COpenSSL_X509_STORE_CTX_set_app_data(ctx, nil)
        errors = recorder.errors
        chainLength = X509_STORE_CTX_get0_chain(ctx).map { Int(COpenSSL_sk_X509_num($0)) } ?? 0
    }

    /// Collects the errors the callback reports; reached through the context's app-data slot.
    private final class Recorder {
        var errors: [(error: Int32, depth: Int32)] = []
    }
}
