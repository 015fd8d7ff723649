internal import COpenSSL
import TLSTrust

/// A prepared `X509_STORE` holding a set of anchors, shared by all evaluations that use them.
///
/// OpenSSL documents an `X509_STORE` as safe for concurrent verification once it is no longer
/// modified; this class fills it in `init` and never touches it again.
public final class OpenSSLAnchorStore: TrustAnchorStore, @unchecked Sendable {  // immutable after init; X509_STORE is thread-safe for lookups
    let store: OpaquePointer
    public let certificates: [Certificate]
    /// Keeps the `X509*` alive (the store holds its own references too) and lets a built chain be
    /// mapped back to the caller's `Certificate` values by pointer, with no re-encoding.
    private let parsed: [OpenSSLCertificate]
    let byPointer: [UnsafeRawPointer: Certificate]

    init(_ anchors: [Certificate]) throws {
        _ = OpenSSLLibrary.initialized
        guard let store = X509_STORE_new() else {
            throw TLSTrustError(.backendFailure, "OpenSSL: X509_STORE_new failed: \(OpenSSLLibrary.drainErrors())")
        }
        var unique: [Certificate] = []
        var seen = Set<Certificate>()
        for anchor in anchors where seen.insert(anchor).inserted { unique.append(anchor) }
        var parsed: [OpenSSLCertificate] = []
        var byPointer: [UnsafeRawPointer: Certificate] = [:]
        do {
            for anchor in unique {
                let x = try OpenSSLCertificate(derEncoded: anchor.derEncoded)
                guard X509_STORE_add_cert(store, x.ref) == 1 else {
                    throw TLSTrustError(.backendFailure, "OpenSSL: cannot add an anchor: \(OpenSSLLibrary.drainErrors())")
                }
                parsed.append(x)
                byPointer[UnsafeRawPointer(x.ref)] = anchor
            }
        } catch {
            X509_STORE_free(store)
            throw error
        }
        self.store = store
        self.certificates = unique
        self.parsed = parsed
        self.byPointer = byPointer
    }

    deinit { X509_STORE_free(store) }
}
