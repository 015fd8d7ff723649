import Foundation
import Security
@_spi(Testing) import SecurityTLSTrust
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing


/// Runs `body` with the Sec layer evaluating on `backend` and treating `systemAnchors` as the
/// system trust store (written to a temporary PEM file), since a process can bootstrap only once
/// and the machine's real store must not decide a test.
func withSecurityEnvironment<R>(
    backend: String, systemAnchors: [TestCertificate] = [], _ body: () throws -> R
) throws -> R {
    try TemporaryDirectory.with { directory in
        let bundle = directory.appendingPathComponent("system-anchors.pem")
        try TestPKI.writePEM(systemAnchors, to: bundle)
        let store = SystemTrustStore(files: [bundle.path])
        return try SecTrustEnvironment.$systemStore.withValue(store) {
            try SecTrustEnvironment.$backend.withValue(TestBackends.named(backend)) { try body() }
        }
    }
}

extension TestCertificate {
    /// The certificate as a port gets it: `SecCertificateCreateWithData` over its DER.
    var secCertificate: SecCertificate {
        get throws { try #require(SecCertificateCreateWithData(nil, Data(der) as CFData)) }
    }
}

/// A trust over `chain` with `policies`, as ported code makes it.
func makeTrust(_ chain: [TestCertificate], _ policies: [SecPolicy]) throws -> SecTrust {
    var trust: SecTrust?
    let certificates = try chain.map { try $0.secCertificate }
    #expect(SecTrustCreateWithCertificates(certificates as CFArray, policies as CFArray, &trust) == errSecSuccess)
    return try #require(trust)
}

/// Evaluates with `SecTrustEvaluateWithError` and returns the CFError's code, or nil when trusted.
func evaluationErrorCode(_ trust: SecTrust) -> Int? {
    var error: CFError?
    let trusted = SecTrustEvaluateWithError(trust, &error)
    #expect(trusted == (error == nil))
    if let error { #expect(error.domain == NSOSStatusErrorDomain) }
    return error.map { CFErrorGetCode($0) }
}
