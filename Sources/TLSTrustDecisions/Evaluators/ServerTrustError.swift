import TLSTrustCore
/// Why a server's chain was refused, with the evidence.
///
/// A struct over a private code, compared by code, so that codes can be added without breaking
/// callers (the pattern of swift-certificates' `CertificateError`); it carries what Alamofire's
/// `ServerTrustFailureReason` carries: the host, the presented chain, the chain as built, the
/// expected pins, and the underlying `TrustEvaluation` when there was one.
///
/// ```swift
/// do { try evaluator.evaluate(trust, forHost: host, using: backend) }
/// catch let error as ServerTrustError where error.code == .publicKeyPinningFailed {
///     print(error.expectedPins, error.builtChain.map(\.publicKey.pin))
/// }
/// ```
public struct ServerTrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value to compare against.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable, CaseIterable {
            case noEvaluatorForHost, noCertificatesPresented, noPinsConfigured
            case defaultEvaluationFailed, hostValidationFailed
            case certificatePinningFailed, publicKeyPinningFailed, pinSetFailed
            case revocationCheckFailed, policyRefused, invalidConfiguration, customEvaluationFailed
        }
        let value: Value
        init(_ value: Value) { self.value = value }

        /// A ``ServerTrustManager`` with `allHostsMustBeEvaluated` knows no evaluator for the host.
        public static let noEvaluatorForHost = Code(.noEvaluatorForHost)
        /// The trust holds no certificate.
        public static let noCertificatesPresented = Code(.noCertificatesPresented)
        /// A pinning evaluator was given no certificate or key to pin.
        public static let noPinsConfigured = Code(.noPinsConfigured)
        /// The chain did not validate against the anchors (see ``ServerTrustError/evaluation``).
        public static let defaultEvaluationFailed = Code(.defaultEvaluationFailed)
        /// The chain validated but does not name the host.
        public static let hostValidationFailed = Code(.hostValidationFailed)
        /// No pinned certificate is in the validated chain.
        public static let certificatePinningFailed = Code(.certificatePinningFailed)
        /// No pinned public key belongs to a certificate of the validated chain.
        public static let publicKeyPinningFailed = Code(.publicKeyPinningFailed)
        /// An SPKI-hash pin set for the host matched no certificate of the validated chain.
        public static let pinSetFailed = Code(.pinSetFailed)
        /// A certificate of the validated chain is revoked, or its status could not be established.
        public static let revocationCheckFailed = Code(.revocationCheckFailed)
        /// The policy refuses before evaluating (AFNetworking's refusal to validate a domain name
        /// with `allowInvalidCertificates` and no pinned certificates).
        public static let policyRefused = Code(.policyRefused)
        /// The evaluator's configuration cannot be used (unreadable pins, contradictions).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// An app's own evaluator refused.
        public static let customEvaluationFailed = Code(.customEvaluationFailed)

        /// Every code, for tables and documentation.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        public var description: String { value.rawValue }
    }

    public let code: Code
    /// The host evaluated for.
    public let host: String
    /// The chain the server presented (untrusted input).
    public let presentedChain: [Certificate]
    /// The chain as built by the last evaluation (leaf first); empty when none was built.
    public let builtChain: [Certificate]
    /// The pins the evaluator expected: `sha256/` SPKI pins for keys and pin sets.
    public let expectedPins: [String]
    /// The certificates the evaluator expected, for certificate pinning and anchored evaluation.
    public let pinnedCertificates: [Certificate]
    /// The evaluation behind the refusal, when there was one.
    public let evaluation: TrustEvaluation?
    /// The evaluator that refused.
    public let evaluator: String
    /// A one-line explanation.
    public let message: String

    /// - Parameters:
    ///   - code: what went wrong.
    ///   - host: the host evaluated for.
    ///   - message: a one-line explanation.
    ///   - evaluator: the evaluator that refused (for an app's own evaluator, its type name).
    ///   - presentedChain: the chain the server presented (default empty).
    ///   - evaluation: the evaluation behind the refusal (default none).
    ///   - builtChain: defaults to `evaluation?.chain`.
    ///   - expectedPins: the `sha256/` pins expected (default none).
    ///   - pinnedCertificates: the certificates expected (default none).
    public init(
        _ code: Code, host: String, message: String, evaluator: String, presentedChain: [Certificate] = [],
        evaluation: TrustEvaluation? = nil, builtChain: [Certificate]? = nil, expectedPins: [String] = [],
        pinnedCertificates: [Certificate] = []
    ) {
        self.code = code
        self.host = host
        self.message = message
        self.evaluator = evaluator
        self.presentedChain = presentedChain
        self.evaluation = evaluation
        self.builtChain = builtChain ?? evaluation?.chain ?? []
        self.expectedPins = expectedPins
        self.pinnedCertificates = pinnedCertificates
    }

    /// `host: evaluator refused (code): message`.
    public var description: String { "\(host): \(evaluator) refused (\(code)): \(message)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
