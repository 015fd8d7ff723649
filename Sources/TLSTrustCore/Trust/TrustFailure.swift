/// One reason a certificate chain is not trusted.
///
/// Carries the portable ``code`` that is the same on every backend, the position of the certificate
/// it concerns in the chain as built (0 is the leaf), and a human-readable ``detail``. When a TLS
/// library's own verifier found the failure (`Trust.evaluateNatively(using:)`, for comparison), ``libraryCode`` keeps the
/// library's error number, so that nothing the library said is lost; the validation engine's own
/// findings have no library code, and say so with nil rather than a made-up 0.
public struct TrustFailure: Sendable, Hashable, CustomStringConvertible {
    public let code: TrustFailureCode
    /// Index into `TrustEvaluation.chain` (0 = leaf), or nil when the failure concerns no single certificate.
    public let certificateIndex: Int?
    /// The library's own error number (an `X509_V_ERR_*` value, a GnuTLS status bit, an mbedTLS
    /// flag or error code), or nil when no library reported this failure — the engine's findings,
    /// and refusals a backend makes before its library is asked.
    public let libraryCode: Int?
    /// What is wrong, in words: the engine's message, or the library's own text for ``libraryCode``.
    public let detail: String

    public init(_ code: TrustFailureCode, certificateIndex: Int?, libraryCode: Int? = nil, detail: String) {
        self.code = code
        self.certificateIndex = certificateIndex
        self.libraryCode = libraryCode
        self.detail = detail
    }

    public var description: String {
        let at = certificateIndex.map { " at depth \($0)" } ?? ""
        return "\(code)\(at): \(detail)"
    }
}

/// A backend-independent reason for distrust.
///
/// A struct over a private enum, so new codes can be added without breaking callers' `switch`es;
/// compare with `==` against the static members.
public struct TrustFailureCode: Sendable, Hashable, CustomStringConvertible {
    enum Value: String, Sendable, CaseIterable {
        case expired, notYetValid, hostnameMismatch, ipAddressMismatch, unknownIssuer, untrustedRoot
        case badSignature, notCertificateAuthority, pathLengthExceeded, nameConstraintsViolated
        case purposeNotAllowed, chainTooLong, weakAlgorithm, malformedCertificate, invalidKeyUsage
        case unhandledCriticalExtension, invalidPolicy, revoked, internalError
        case budgetExhausted, unsupported
        case certificatePolicyViolated, emailAddressMismatch
        case revocationStatusUnknown
        case validityPeriodTooLong
        case certificateTransparencyRequired
    }

    let value: Value
    init(_ value: Value) { self.value = value }

    /// The verification date is after notAfter.
    public static let expired = Self(.expired)
    /// The verification date is before notBefore.
    public static let notYetValid = Self(.notYetValid)
    /// The leaf does not name the requested DNS host.
    public static let hostnameMismatch = Self(.hostnameMismatch)
    /// The leaf does not name the requested IP address.
    public static let ipAddressMismatch = Self(.ipAddressMismatch)
    /// The issuer of a certificate in the chain could not be found (the path does not reach an anchor).
    public static let unknownIssuer = Self(.unknownIssuer)
    /// The path ends at a self-signed certificate that is not an anchor.
    public static let untrustedRoot = Self(.untrustedRoot)
    /// A signature in the chain does not verify.
    public static let badSignature = Self(.badSignature)
    /// A certificate used as an issuer is not a CA (no basicConstraints cA:TRUE).
    public static let notCertificateAuthority = Self(.notCertificateAuthority)
    /// A CA's pathLenConstraint is exceeded.
    public static let pathLengthExceeded = Self(.pathLengthExceeded)
    /// A name in the chain lies outside a CA's name constraints.
    public static let nameConstraintsViolated = Self(.nameConstraintsViolated)
    /// The leaf's extended key usage does not allow the required purpose.
    public static let purposeNotAllowed = Self(.purposeNotAllowed)
    /// The path has more intermediates than the maximum chain depth allows.
    public static let chainTooLong = Self(.chainTooLong)
    /// A signature or key algorithm is unsupported or too weak (SHA-1, short RSA keys, …).
    public static let weakAlgorithm = Self(.weakAlgorithm)
    /// A certificate could not be decoded, or no certificate was presented.
    public static let malformedCertificate = Self(.malformedCertificate)
    /// A certificate's keyUsage does not allow how it is used (e.g. a CA without keyCertSign).
    public static let invalidKeyUsage = Self(.invalidKeyUsage)
    /// A certificate carries a critical extension the verifier does not understand.
    public static let unhandledCriticalExtension = Self(.unhandledCriticalExtension)
    /// The policies asked for are contradictory or unusable (e.g. two different host names).
    public static let invalidPolicy = Self(.invalidPolicy)
    /// The path is not valid for any acceptable certificate policy where one is required (RFC 5280
    /// §6.1, by the caller's ``TrustPolicy/certificatePolicies(_:requireExplicitPolicy:inhibitPolicyMapping:inhibitAnyPolicy:)``
    /// or by a CA's policyConstraints), or a CA maps anyPolicy (§6.1.4 (a)).
    public static let certificatePolicyViolated = Self(.certificatePolicyViolated)
    /// The leaf does not carry the requested e-mail address (``TrustPolicy/email(address:)``).
    public static let emailAddressMismatch = Self(.emailAddressMismatch)
    /// The leaf's validity period is longer than the profile allows (``ValidationProfile/apple``:
    /// trustd's maximums for TLS server certificates, 825 or 398 days).
    public static let validityPeriodTooLong = Self(.validityPeriodTooLong)
    /// The chain ends at an anchor the Certificate Transparency policy applies to, and the leaf's
    /// SCTs do not meet it (``CertificateTransparencyPolicy``; `SecTrust` reports it as a
    /// recoverable failure, "Certificate Transparency validation required").
    public static let certificateTransparencyRequired = Self(.certificateTransparencyRequired)
    /// A certificate has been revoked.
    public static let revoked = Self(.revoked)
    /// Hard-fail revocation (``RevocationPolicy/Mode/hard``) found no usable answer for a
    /// certificate: no CRL or OCSP response that is current, correctly signed and about it.
    public static let revocationStatusUnknown = Self(.revocationStatusUnknown)
    /// The backend failed for a reason that says nothing about the chain (out of memory, a library bug).
    public static let internalError = Self(.internalError)
    /// Path building, name-constraint checking or certificate-policy processing used up its work budget before finding a valid
    /// path: the input is hostile or absurd, and it is refused rather than worked on without end.
    public static let budgetExhausted = Self(.budgetExhausted)
    /// The backend cannot honour the request at all (an option its native verifier lacks, a
    /// signature algorithm its library cannot verify). Not a verdict on the chain.
    public static let unsupported = Self(.unsupported)

    /// Every code, for tables and documentation.
    public static var allCases: [TrustFailureCode] { Value.allCases.map(Self.init) }

    /// The stable identifier used in JSON output and documentation (e.g. `expired`).
    public var identifier: String { value.rawValue }
    public var description: String { value.rawValue }

    /// Orders failures from the most fundamental (the chain cannot be read or does not verify) to
    /// the most specific (the right chain for the wrong name), so that every backend reports the
    /// same primary reason whatever order its library found them in.
    public var rank: Int {
        let order: [Value] = [
            .unsupported, .malformedCertificate, .internalError, .invalidPolicy, .budgetExhausted, .badSignature, .weakAlgorithm,
            .unhandledCriticalExtension, .unknownIssuer, .untrustedRoot, .notCertificateAuthority,
            .invalidKeyUsage, .pathLengthExceeded, .chainTooLong, .nameConstraintsViolated, .certificatePolicyViolated,
            .revoked, .revocationStatusUnknown, .certificateTransparencyRequired, .expired, .notYetValid, .validityPeriodTooLong, .purposeNotAllowed, .hostnameMismatch, .ipAddressMismatch,
            .emailAddressMismatch,
        ]
        return order.firstIndex(of: value) ?? order.count
    }

    /// Whether Apple's `SecTrust` would call this a recoverable failure: one the app could choose to
    /// override (different date, host or anchors). Broken signatures, malformed or misissued
    /// chains are fatal.
    public var isRecoverable: Bool {
        switch value {
        case .badSignature, .malformedCertificate, .notCertificateAuthority, .pathLengthExceeded,
             .nameConstraintsViolated, .unhandledCriticalExtension, .revoked, .internalError,
             .budgetExhausted, .unsupported, .certificatePolicyViolated:
            return false
        default:
            return true
        }
    }
}
