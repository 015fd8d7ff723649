import TLSTrust
import TLSTrustOpenSSL

/// Where the Sec layer gets its backend and system trust store.
///
/// The backend is the one bootstrapped with `TrustBackends.bootstrap(_:)`; when none is,
/// OpenSSL (`OpenSSLTrustBackend`), the documented default, so that ported code works without a
/// TLSTrust-specific line. The system store is `SystemTrustStore.current`.
///
/// Tests (and code that must pin a backend for one scope) override both for a task with the task
/// locals, since a process can bootstrap only once:
/// ```swift
/// try SecTrustEnvironment.$backend.withValue(GnuTLSTrustBackend()) { … SecTrustEvaluateWithError(…) … }
/// ```
/// A trust uses the values current when it evaluates (or re-evaluates after a change);
/// `SecTrustEvaluateAsyncWithError` carries the caller's values to the queue it evaluates on.
@_spi(Testing)
public enum SecTrustEnvironment {
    /// The backend to evaluate with instead of the bootstrapped default.
    @TaskLocal public static var backend: (any TrustBackend)?
    /// The system trust store to use instead of `SystemTrustStore.current`.
    @TaskLocal public static var systemStore: SystemTrustStore?
    /// The Certificate Transparency policy to use instead of
    /// `SecTrust.defaultCertificateTransparencyPolicy`, for trusts without one of their own.
    @TaskLocal public static var certificateTransparency: CertificateTransparencyPolicy?
}

enum SecBackend {
    /// The bootstrapped default, else OpenSSL.
    static var current: any TrustBackend {
        SecTrustEnvironment.backend ?? TrustBackends.defaultBackend ?? fallback
    }

    static let fallback: any TrustBackend = OpenSSLTrustBackend()

    static var systemStore: SystemTrustStore { SecTrustEnvironment.systemStore ?? .current }
}
