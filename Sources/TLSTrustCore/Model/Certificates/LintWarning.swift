/// A dangerous or suspicious setting found by `lint()` on an evaluator, a policy or a pin set.
///
/// A struct over a private code, compared by code (new checks can be added without breaking
/// callers). Warnings do not change any verdict; they name settings that weaken it.
///
/// ```swift
/// for warning in policy.lint() { print(warning) }   // "allowInvalidCertificatesWithPublicKeyPinning: …"
/// ```
public struct LintWarning: Sendable, Hashable, CustomStringConvertible {
    /// Which check fired.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable, CaseIterable {
            case domainValidationDisabled, allowInvalidCertificates, allowInvalidCertificatesWithPublicKeyPinning
            case trustEvaluationDisabled, noPins, hostsNotEvaluated
            case singlePin, noBackupPin, certificateHashAsPin, expiredPinSet, weakPinDigest
            case commonNameNotInSubjectAltName, leafIsCertificateAuthority
        }
        let value: Value
        init(_ value: Value) { self.value = value }

        /// The host name is not checked: any valid certificate for any name passes.
        public static let domainValidationDisabled = Code(.domainValidationDisabled)
        /// Invalid chains (self-signed, unknown issuer) are accepted.
        public static let allowInvalidCertificates = Code(.allowInvalidCertificates)
        /// AFNetworking public-key mode with invalid certificates allowed: there, any presented
        /// certificate satisfies the pin. TLSTrust requires the key on the leaf's signature path.
        public static let allowInvalidCertificatesWithPublicKeyPinning = Code(.allowInvalidCertificatesWithPublicKeyPinning)
        /// Trust evaluation is switched off altogether.
        public static let trustEvaluationDisabled = Code(.trustEvaluationDisabled)
        /// A pinning mode or evaluator with no pin: it refuses every chain.
        public static let noPins = Code(.noPins)
        /// A trust manager lets hosts it does not know through without evaluation.
        public static let hostsNotEvaluated = Code(.hostsNotEvaluated)
        /// Only one pin while enforcing: no backup pin for a key rotation.
        public static let singlePin = Code(.singlePin)
        /// Every pin matches the current chain: none is a real backup.
        public static let noBackupPin = Code(.noBackupPin)
        /// A pin is the hash of a whole certificate, not of its SubjectPublicKeyInfo.
        public static let certificateHashAsPin = Code(.certificateHashAsPin)
        /// The pin set's expiry date has passed: it no longer applies.
        public static let expiredPinSet = Code(.expiredPinSet)
        /// A pin is a SHA-1 digest (OkHttp's `sha1/`): applied, but SHA-1 is no longer
        /// collision-resistant; pin with `sha256/`.
        public static let weakPinDigest = Code(.weakPinDigest)
        /// A certificate's subject commonName names a host or address that none of its
        /// subjectAltNames carries (CA/B Forum BR §7.1.4.3). Harmless to TLSTrust, which never
        /// reads the CN of a certificate with subjectAltNames, but misleading to people and to
        /// legacy software that does.
        public static let commonNameNotInSubjectAltName = Code(.commonNameNotInSubjectAltName)
        /// A certificate with basicConstraints cA:TRUE used as an end-entity (the
        /// `openssl req -x509` default): trusted only as its own anchor; it could also sign others.
        public static let leafIsCertificateAuthority = Code(.leafIsCertificateAuthority)

        /// Every code, for tables and documentation.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The stable identifier used in tool output (e.g. `singlePin`).
        public var identifier: String { value.rawValue }
        public var description: String { value.rawValue }
    }

    public let code: Code
    /// What the warning concerns: a host, a domain, a pin set, an evaluator; may be empty.
    public let subject: String
    /// A one-line explanation and what to do about it.
    public let message: String

    public init(_ code: Code, subject: String = "", _ message: String) {
        self.code = code
        self.subject = subject
        self.message = message
    }

    /// `code (subject): message`.
    public var description: String {
        subject.isEmpty ? "\(code): \(message)" : "\(code) (\(subject)): \(message)"
    }
}
