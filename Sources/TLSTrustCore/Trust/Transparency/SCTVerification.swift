/// What the engine found about one SCT: which log, from which source, and whether it holds.
public struct SCTVerification: Sendable, Hashable, CustomStringConvertible {
    /// The verdict on one SCT. Every status but ``valid`` means the SCT counts for nothing.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// The log's signature verifies over this certificate.
        case valid
        /// The SCT (or its list) is malformed, or of a version other than v1.
        case malformed
        /// No log of the list has this log ID.
        case unknownLog
        /// Its timestamp is after the verification time.
        case futureTimestamp
        /// Its signature algorithm is not SHA-256 with ECDSA or RSA, or does not fit the log's key.
        case unsupportedAlgorithm
        /// The log's signature does not verify over this certificate.
        case invalidSignature
        /// It could not be checked: no issuer for an embedded SCT, or a library failure.
        case unverifiable
    }

    /// Where it came from.
    public let source: SCTSource
    /// The SCT, when it could be read.
    public let timestamp: SignedCertificateTimestamp?
    /// The bytes judged (the SCT, or the whole list when its framing is malformed).
    public let encoded: [UInt8]
    /// The log that issued it, when the list knows it.
    public let log: CertificateTransparencyLog?
    public let status: Status
    /// Why: the reason for the status, in words.
    public let reason: String

    public var isValid: Bool { status == .valid }

    public var description: String {
        let who = log.map { "\($0)" } ?? timestamp.map { "log \(Base64.encode($0.logID))" } ?? "unreadable"
        return "SCT (\(source)) from \(who): \(status.rawValue), \(reason)"
    }
}
