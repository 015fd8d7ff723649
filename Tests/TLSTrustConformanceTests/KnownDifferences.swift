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

        /// The same deviation, for the same reason, of each of `backends` (in the order given).
        static func on(_ backends: [String], _ caseName: String, _ reason: String) -> [NativeDeviation] {
            backends.map { NativeDeviation(caseName, $0, reason) }
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
        NativeDeviation.on(["mbedtls"], "aki.contradicting", "matches issuers by name and signature, ignores the authorityKeyIdentifier"),
        NativeDeviation.on(["openssl"], "crl.futureSoft", "soft mode tolerates only \"no CRL\": a CRL not yet valid is `CRL_NOT_YET_VALID` (revocationStatusUnknown); the engine judges without it"),
        NativeDeviation.on(["openssl"], "crl.indirectHard", "ignores an indirect CRL without `X509_V_FLAG_EXTENDED_CRL_SUPPORT` (no CRL: revocationStatusUnknown); the engine reads the issuer's own entries in it (RFC 5280 §5.2.5) and trusts the unlisted leaf"),
        NativeDeviation.on(["openssl"], "crl.staleSoft", "soft mode tolerates only \"no CRL\": an expired CRL is `CRL_HAS_EXPIRED` (revocationStatusUnknown); the engine judges without it"),
        NativeDeviation.on(["openssl"], "crl.withoutCRLNumberHard", "uses a CRL without the cRLNumber extension (RFC 5280 §5.2.3 MUST); the engine refuses it as unusable"),
        NativeDeviation.on(["openssl"], "crl.wrongSignerListsLeafSoft", "soft mode tolerates only \"no CRL\": a badly signed CRL is `CRL_SIGNATURE_FAILURE` (revocationStatusUnknown, not revoked); the engine judges without it"),
        NativeDeviation.on(["openssl"], "crl.wrongSignerSoft", "soft mode tolerates only \"no CRL\": a badly signed CRL is `CRL_SIGNATURE_FAILURE` (revocationStatusUnknown); the engine judges without it"),
        NativeDeviation.on(["gnutls"], "host.commonNameOnly", "falls back to the subject CN when there is no dNSName SAN"),
        NativeDeviation.on(["mbedtls"], "host.commonNameOnly", "falls back to the subject CN when there is no SAN"),
        NativeDeviation.on(["openssl", "gnutls", "mbedtls"], "host.wildcardOverPublicSuffix", noPublicSuffixList),
        NativeDeviation.on(["openssl"], "key.rsa2047Leaf", "security level 1 (the default) accepts RSA keys of 1024 bits and more"),
        NativeDeviation.on(["mbedtls"], "key.rsa2047Leaf", "its verification profile accepts the 2047-bit leaf key"),
        NativeDeviation.on(["mbedtls"], "nc.directoryNameUTF8Bypass", mbedTLSNoNameConstraints),
        NativeDeviation.on(["gnutls"], "nc.ipv4MappedUnderIPv4Permitted", "an IPv4-only permitted set does not constrain IPv6 (mapped) addresses"),
        NativeDeviation.on(["mbedtls"], "nc.ipv4MappedUnderIPv4Permitted", mbedTLSNoNameConstraints),
        NativeDeviation.on(["openssl", "gnutls"], "nc.kelvinPermitted", constraintsAsBytes),
        NativeDeviation.on(["mbedtls"], "nc.kelvinPermitted", mbedTLSNoNameConstraints),
        NativeDeviation.on(["mbedtls"], "nc.rfc822Outside", mbedTLSNoNameConstraints),
        NativeDeviation.on(["openssl"], "nc.trailingDotBypass", "an absolute name (trailing dot) is not inside the excluded subtree of its relative form"),
        NativeDeviation.on(["mbedtls"], "nc.trailingDotBypass", mbedTLSNoNameConstraints),
        NativeDeviation.on(["gnutls"], "nc.uriOutside", "URI name constraints are not enforced"),
        NativeDeviation.on(["mbedtls"], "nc.uriOutside", mbedTLSNoNameConstraints),
        NativeDeviation.on(["openssl", "gnutls", "mbedtls"], "path.deadEndCrossFirst", noBacktracking),
        NativeDeviation.on(["gnutls"], "path.expiredCrossFirst", "uses the first presented issuer, expired or not: " + noBacktracking),
        NativeDeviation.on(["openssl", "gnutls"], "path.sameNamedRealLast", "no retry after a signature failure: " + noBacktracking),
        NativeDeviation.on(["mbedtls"], "path.sameNamedRealLast", mbedTLSNotTrusted),
        NativeDeviation.on(["mbedtls"], "scenario.badSignature", mbedTLSNotTrusted),
        NativeDeviation.on(["mbedtls"], "scenario.intermediateNotCA", mbedTLSNotTrusted),
        NativeDeviation.on(["mbedtls"], "scenario.intermediateWithoutBasicConstraints", mbedTLSNotTrusted),
        NativeDeviation.on(["mbedtls"], "scenario.nameConstraintsSatisfied", mbedTLSNoNameConstraints),
        NativeDeviation.on(["mbedtls"], "scenario.nameConstraintsViolated", mbedTLSNoNameConstraints),
        NativeDeviation.on(["gnutls"], "scenario.pathLengthExceeded", "`GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE` (pathLen) maps to nameConstraintsViolated"),
        NativeDeviation.on(["mbedtls"], "scenario.pathLengthExceeded", mbedTLSNotTrusted),
        NativeDeviation.on(["gnutls"], "scenario.selfSignedLeaf", gnuTLSNoUntrustedRoot),
        NativeDeviation.on(["mbedtls"], "scenario.selfSignedLeaf", mbedTLSNotTrusted),
        NativeDeviation.on(["gnutls"], "scenario.untrustedRoot", gnuTLSNoUntrustedRoot),
        NativeDeviation.on(["mbedtls"], "scenario.untrustedRoot", mbedTLSNotTrusted),
        NativeDeviation.on(["openssl", "gnutls", "mbedtls"], "webpki.caBasicConstraintsNotCritical", rfc5280Only),
        NativeDeviation.on(["openssl"], "webpki.caWithoutKeyCertSign", "code only: reported as an invalid CA certificate (notCertificateAuthority)"),
        NativeDeviation.on(["gnutls"], "webpki.caWithoutKeyCertSign", "code only: `GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE` maps to nameConstraintsViolated"),
        NativeDeviation.on(["mbedtls"], "webpki.caWithoutKeyCertSign", mbedTLSNotTrusted),
        NativeDeviation.on(["openssl", "gnutls", "mbedtls"], "webpki.caWithoutSKI", rfc5280Only),
        NativeDeviation.on(["openssl", "gnutls", "mbedtls"], "webpki.emptyLeafSubject", rfc5280Only),
        NativeDeviation.on(["openssl", "gnutls", "mbedtls"], "webpki.leafIsCA", rfc5280Only),
        NativeDeviation.on(["openssl", "gnutls", "mbedtls"], "webpki.leafWithoutAKI", rfc5280Only),
        NativeDeviation.on(["mbedtls"], "webpki.unknownCriticalExtension", "refuses to parse a certificate with an unknown critical extension (malformedCertificate)"),
    ].flatMap { $0 }

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
