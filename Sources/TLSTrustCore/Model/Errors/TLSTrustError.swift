/// An error thrown by TLSTrust for input it cannot use or an operation it cannot perform.
///
/// A struct over a private code, compared by code, so that new codes can be added without breaking
/// callers (the pattern of swift-certificates' `CertificateError`). A failed *evaluation* is not an
/// error: it is a `TrustEvaluation` whose `isTrusted` is false. This type is for input that could
/// not be read (malformed DER or PEM, an unknown backend, an unsupported option).
public struct TLSTrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value to compare against.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable {
            case malformedCertificate, malformedPEM, noCertificate, malformedKey, unreadableFile
            case unknownBackend, noBackend, unsupported, invalidArgument, backendFailure
            case wrongPassword, malformedPKCS12, noPrivateKey, keyMismatch, limitExceeded
            case networkFailure
        }
        let value: Value
        init(_ value: Value) { self.value = value }

        /// The bytes are not a well-formed X.509 certificate.
        public static let malformedCertificate = Code(.malformedCertificate)
        /// The text looks like PEM but is not valid PEM (bad base64, unterminated block).
        public static let malformedPEM = Code(.malformedPEM)
        /// The input holds no certificate at all.
        public static let noCertificate = Code(.noCertificate)
        /// The bytes are not a well-formed public key.
        public static let malformedKey = Code(.malformedKey)
        /// A file could not be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// No backend is registered under the requested name.
        public static let unknownBackend = Code(.unknownBackend)
        /// No backend was given and none was bootstrapped.
        public static let noBackend = Code(.noBackend)
        /// The backend cannot honour a requested option at all.
        public static let unsupported = Code(.unsupported)
        /// An argument is out of range or contradictory.
        public static let invalidArgument = Code(.invalidArgument)
        /// The underlying library failed in a way that is not the input's fault.
        public static let backendFailure = Code(.backendFailure)
        /// The password does not open the PKCS#12 file or the encrypted key (its MAC or decryption fails).
        public static let wrongPassword = Code(.wrongPassword)
        /// The bytes are not a well-formed PKCS#12 file (truncated, damaged, not PKCS#12).
        public static let malformedPKCS12 = Code(.malformedPKCS12)
        /// The PKCS#12 file or PEM text holds no private key.
        public static let noPrivateKey = Code(.noPrivateKey)
        /// The private key does not belong to the certificate.
        public static let keyMismatch = Code(.keyMismatch)
        /// The input asks for more work than TLSTrust allows, such as a PKCS#12 file whose key
        /// derivation names more than ``KeyDerivationBudget/maximumIterations`` iterations.
        public static let limitExceeded = Code(.limitExceeded)
        /// A server could not be reached, closed the connection early, or answered with an error
        /// status (a revocation fetch: ``HTTPRevocationFetcher``).
        public static let networkFailure = Code(.networkFailure)

        public var description: String { value.rawValue }
    }

    public let code: Code
    /// A one-line, human-readable explanation.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
