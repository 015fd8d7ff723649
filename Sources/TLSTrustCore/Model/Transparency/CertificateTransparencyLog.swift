import Foundation

/// A Certificate Transparency log as a log list describes it: its key and ID, who operates it,
/// its state, and the certificates it accepts (its temporal interval).
///
/// Made by ``CertificateTransparencyLogList`` from Chrome's or Apple's list, or by hand. The ID is
/// always computed from the key (RFC 6962 §3.2: SHA-256 of the SubjectPublicKeyInfo), so a log
/// cannot be named by one ID and verify with another key.
public struct CertificateTransparencyLog: Sendable, Hashable, CustomStringConvertible {
    /// The API a log serves: both sign the same SCTs.
    public enum Kind: String, Sendable, Hashable {
        /// An RFC 6962 log (`logs` in the lists).
        case rfc6962
        /// A Static CT API (tiled) log (`tiled_logs` in the lists).
        case staticCTAPI
    }

    /// A log's state in the list (Chrome's log_states.md; Apple uses the same names).
    public enum State: String, Sendable, Hashable, CaseIterable {
        case pending, qualified, usable, readOnly = "readonly", retired, rejected
    }

    /// SHA-256 of the key's SubjectPublicKeyInfo DER.
    public let logID: [UInt8]
    /// The log's public key (ECDSA P-256 or RSA of at least 2048 bits, RFC 6962 §2.1.4).
    public let key: PublicKey
    /// The operator's name, as the list gives it: the policies count operators by it.
    public let operatorName: String
    /// Who operated the log before ``operatorName`` (Chrome's v3 `previous_operators`), earliest
    /// end first: an SCT counts for the operator that ran the log when it was issued.
    public let previousOperators: [PreviousOperator]
    /// The list's description of the log.
    public let name: String
    public let kind: Kind
    /// The state, and since when, or nil when the list gives none.
    public let state: State?
    public let stateSince: Date?
    /// The certificates whose notAfter falls in this interval (start inclusive, end exclusive) are
    /// the ones the log accepts; nil when it accepts any.
    public let temporalInterval: Range<Date>?

    /// An operator that ran the log until `endTime` (exclusive).
    public struct PreviousOperator: Sendable, Hashable {
        public let name: String
        public let endTime: Date

        public init(name: String, endTime: Date) {
            self.name = name
            self.endTime = endTime
        }
    }

    public init(key: PublicKey, operatorName: String, name: String = "", kind: Kind = .rfc6962,
                state: State? = .usable, stateSince: Date? = nil, temporalInterval: Range<Date>? = nil,
                previousOperators: [PreviousOperator] = []) {
        self.key = key
        self.logID = key.sha256
        self.operatorName = operatorName
        self.previousOperators = previousOperators.sorted { $0.endTime < $1.endTime }
        self.name = name
        self.kind = kind
        self.state = state
        self.stateSince = stateSince
        self.temporalInterval = temporalInterval
    }

    /// The operator that ran the log at `date` (an SCT's timestamp): the first previous operator
    /// whose time ended after it, else the current one (ct_policy.md: "each SCT's log operator is
    /// determined to be the operator at the time of SCT issuance").
    public func operatorName(at date: Date) -> String {
        previousOperators.first { date < $0.endTime }?.name ?? operatorName
    }

    /// The log ID in base64, as the log lists write it.
    public var logIDBase64: String { Base64.encode(logID) }

    public var description: String { "\(name.isEmpty ? logIDBase64 : name) (\(operatorName))" }
}
