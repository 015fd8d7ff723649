import Foundation
import TLSTrust
import TLSTrustTesting

/// Where backends, or a library's own verifier, legitimately reach another verdict, each with its
/// reason: Swift values in the test target, so that only a change to this file (reviewed like code)
/// can allow a difference.
///
/// The conformance suite expects, per backend, what ``verdictDifferences`` says; the differential
/// suite fails on any disagreement between backends, or between the engine and a native verifier,
/// that these lists do not hold, and on any entry that no longer matches what the backends do.
/// `docs/backends.md` states the same rows for readers; `KnownDifferencesDocumentTests` checks
/// that it does, so the document follows this file and a row added there alone fails, never
/// silences a failure.
enum KnownDifferences {
    /// A conformance case on which the backends do not all give the same verdict and primary
    /// portable code: each backend's verdict, and why.
    struct VerdictDifference: Sendable {
        let verdicts: [String: TestScenario.Expectation]
        let reason: String
    }

    /// The "Verdict differences" of the conformance catalogue, by case name.
    static let verdictDifferences: [String: VerdictDifference] = [
        "validEd25519": VerdictDifference(
            verdicts: ["openssl": .trusted, "gnutls": .trusted, "mbedtls": .rejected(.unsupported)],
            reason: "mbedTLS 2.28 implements no Ed25519: its key cannot be imported, so the engine cannot check the signatures"),
    ]

    /// A case of the differential native catalogue on which `backend`'s own verifier reaches
    /// another verdict, or another primary code, than the engine.
    struct NativeDeviation: Sendable, Hashable {
        let caseName: String
        let backend: String
        let reason: String

        init(_ caseName: String, _ backend: String, _ reason: String) {
            self.caseName = caseName
            self.backend = backend
            self.reason = reason
        }
    }

    // Reasons shared by several deviations.
    static let rfc5280Only = "RFC 5280 verifier without the web-PKI structural rules (as `openssl verify` without `-x509_strict`)"
    static let mbedTLSNotTrusted = "mbedTLS reports every path problem as NOT_TRUSTED (unknownIssuer)"
    static let mbedTLSNoNameConstraints = "mbedTLS 2.28 does not implement nameConstraints: it cannot even parse a CA with the critical extension"
    static let noPublicSuffixList = "no public-suffix list: `*.co.uk` matches `example.co.uk`"
    static let noBacktracking = "no backtracking: takes the first presented candidate issuer and gives up when it leads nowhere"
    static let gnuTLSNoUntrustedRoot = "no untrusted-root status: `SIGNER_NOT_FOUND`"
    static let constraintsAsBytes = "dNSName constraints compared as bytes: a non-ASCII name inside the suffix passes"

    /// "Native deviations from the engine", in the order `docs/backends.md` lists them.
    static let nativeDeviationList: [NativeDeviation] = [
        NativeDeviation("aki.contradicting", "mbedtls", "matches issuers by name and signature, ignores the authorityKeyIdentifier"),
        NativeDeviation("crl.futureSoft", "openssl", "soft mode tolerates only \"no CRL\": a CRL not yet valid is `CRL_NOT_YET_VALID` (revocationStatusUnknown); the engine judges without it"),
        NativeDeviation("crl.indirectHard", "openssl", "ignores an indirect CRL without `X509_V_FLAG_EXTENDED_CRL_SUPPORT` (no CRL: revocationStatusUnknown); the engine reads the issuer's own entries in it (RFC 5280 §5.2.5) and trusts the unlisted leaf"),
        NativeDeviation("crl.staleSoft", "openssl", "soft mode tolerates only \"no CRL\": an expired CRL is `CRL_HAS_EXPIRED` (revocationStatusUnknown); the engine judges without it"),
        NativeDeviation("crl.withoutCRLNumberHard", "openssl", "uses a CRL without the cRLNumber extension (RFC 5280 §5.2.3 MUST); the engine refuses it as unusable"),
        NativeDeviation("crl.wrongSignerListsLeafSoft", "openssl", "soft mode tolerates only \"no CRL\": a badly signed CRL is `CRL_SIGNATURE_FAILURE` (revocationStatusUnknown, not revoked); the engine judges without it"),
        NativeDeviation("crl.wrongSignerSoft", "openssl", "soft mode tolerates only \"no CRL\": a badly signed CRL is `CRL_SIGNATURE_FAILURE` (revocationStatusUnknown); the engine judges without it"),
        NativeDeviation("host.commonNameOnly", "gnutls", "falls back to the subject CN when there is no dNSName SAN"),
        NativeDeviation("host.commonNameOnly", "mbedtls", "falls back to the subject CN when there is no SAN"),
        NativeDeviation("host.wildcardOverPublicSuffix", "openssl", noPublicSuffixList),
        NativeDeviation("host.wildcardOverPublicSuffix", "gnutls", noPublicSuffixList),
        NativeDeviation("host.wildcardOverPublicSuffix", "mbedtls", noPublicSuffixList),
        NativeDeviation("key.rsa2047Leaf", "openssl", "security level 1 (the default) accepts RSA keys of 1024 bits and more"),
        NativeDeviation("key.rsa2047Leaf", "mbedtls", "its verification profile accepts the 2047-bit leaf key"),
        NativeDeviation("nc.directoryNameUTF8Bypass", "mbedtls", mbedTLSNoNameConstraints),
        NativeDeviation("nc.ipv4MappedUnderIPv4Permitted", "gnutls", "an IPv4-only permitted set does not constrain IPv6 (mapped) addresses"),
        NativeDeviation("nc.ipv4MappedUnderIPv4Permitted", "mbedtls", mbedTLSNoNameConstraints),
        NativeDeviation("nc.kelvinPermitted", "openssl", constraintsAsBytes),
        NativeDeviation("nc.kelvinPermitted", "gnutls", constraintsAsBytes),
        NativeDeviation("nc.kelvinPermitted", "mbedtls", mbedTLSNoNameConstraints),
        NativeDeviation("nc.rfc822Outside", "mbedtls", mbedTLSNoNameConstraints),
        NativeDeviation("nc.trailingDotBypass", "openssl", "an absolute name (trailing dot) is not inside the excluded subtree of its relative form"),
        NativeDeviation("nc.trailingDotBypass", "mbedtls", mbedTLSNoNameConstraints),
        NativeDeviation("nc.uriOutside", "gnutls", "URI name constraints are not enforced"),
        NativeDeviation("nc.uriOutside", "mbedtls", mbedTLSNoNameConstraints),
        NativeDeviation("path.deadEndCrossFirst", "openssl", noBacktracking),
        NativeDeviation("path.deadEndCrossFirst", "gnutls", noBacktracking),
        NativeDeviation("path.deadEndCrossFirst", "mbedtls", noBacktracking),
        NativeDeviation("path.expiredCrossFirst", "gnutls", "uses the first presented issuer, expired or not: " + noBacktracking),
        NativeDeviation("path.sameNamedRealLast", "openssl", "no retry after a signature failure: " + noBacktracking),
        NativeDeviation("path.sameNamedRealLast", "gnutls", "no retry after a signature failure: " + noBacktracking),
        NativeDeviation("path.sameNamedRealLast", "mbedtls", mbedTLSNotTrusted),
        NativeDeviation("scenario.badSignature", "mbedtls", mbedTLSNotTrusted),
        NativeDeviation("scenario.intermediateNotCA", "mbedtls", mbedTLSNotTrusted),
        NativeDeviation("scenario.intermediateWithoutBasicConstraints", "mbedtls", mbedTLSNotTrusted),
        NativeDeviation("scenario.nameConstraintsSatisfied", "mbedtls", mbedTLSNoNameConstraints),
        NativeDeviation("scenario.nameConstraintsViolated", "mbedtls", mbedTLSNoNameConstraints),
        NativeDeviation("scenario.pathLengthExceeded", "gnutls", "`GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE` (pathLen) maps to nameConstraintsViolated"),
        NativeDeviation("scenario.pathLengthExceeded", "mbedtls", mbedTLSNotTrusted),
        NativeDeviation("scenario.selfSignedLeaf", "gnutls", gnuTLSNoUntrustedRoot),
        NativeDeviation("scenario.selfSignedLeaf", "mbedtls", mbedTLSNotTrusted),
        NativeDeviation("scenario.untrustedRoot", "gnutls", gnuTLSNoUntrustedRoot),
        NativeDeviation("scenario.untrustedRoot", "mbedtls", mbedTLSNotTrusted),
        NativeDeviation("webpki.caBasicConstraintsNotCritical", "openssl", rfc5280Only),
        NativeDeviation("webpki.caBasicConstraintsNotCritical", "gnutls", rfc5280Only),
        NativeDeviation("webpki.caBasicConstraintsNotCritical", "mbedtls", rfc5280Only),
        NativeDeviation("webpki.caWithoutKeyCertSign", "openssl", "code only: reported as an invalid CA certificate (notCertificateAuthority)"),
        NativeDeviation("webpki.caWithoutKeyCertSign", "gnutls", "code only: `GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE` maps to nameConstraintsViolated"),
        NativeDeviation("webpki.caWithoutKeyCertSign", "mbedtls", mbedTLSNotTrusted),
        NativeDeviation("webpki.caWithoutSKI", "openssl", rfc5280Only),
        NativeDeviation("webpki.caWithoutSKI", "gnutls", rfc5280Only),
        NativeDeviation("webpki.caWithoutSKI", "mbedtls", rfc5280Only),
        NativeDeviation("webpki.emptyLeafSubject", "openssl", rfc5280Only),
        NativeDeviation("webpki.emptyLeafSubject", "gnutls", rfc5280Only),
        NativeDeviation("webpki.emptyLeafSubject", "mbedtls", rfc5280Only),
        NativeDeviation("webpki.leafIsCA", "openssl", rfc5280Only),
        NativeDeviation("webpki.leafIsCA", "gnutls", rfc5280Only),
        NativeDeviation("webpki.leafIsCA", "mbedtls", rfc5280Only),
        NativeDeviation("webpki.leafWithoutAKI", "openssl", rfc5280Only),
        NativeDeviation("webpki.leafWithoutAKI", "gnutls", rfc5280Only),
        NativeDeviation("webpki.leafWithoutAKI", "mbedtls", rfc5280Only),
        NativeDeviation("webpki.unknownCriticalExtension", "mbedtls", "refuses to parse a certificate with an unknown critical extension (malformedCertificate)"),
    ]

    /// ``nativeDeviationList`` by case name, then backend: why that library's own verifier reaches
    /// another verdict than the engine.
    static let nativeDeviations: [String: [String: String]] = {
        var deviations: [String: [String: String]] = [:]
        for deviation in nativeDeviationList {
            deviations[deviation.caseName, default: [:]][deviation.backend] = deviation.reason
        }
        return deviations
    }()

    /// What `backend` must answer for `testCase`: the listed verdict, else the catalogue's.
    static func expectation(for testCase: ConformanceCase, backend: String) -> TestScenario.Expectation {
        verdictDifferences[testCase.name]?.verdicts[backend] ?? testCase.expectation
    }

    /// Key algorithms a backend's library cannot handle at all (documented in docs/backends.md).
    static let unsupportedKeyAlgorithms: [String: Set<TestKeyAlgorithm>] = ["mbedtls": [.ed25519]]
}
