import Foundation
import TLSTrust
import TLSTrustToolSupport

/// The `--json` record of an evaluation: verdict, result kind, the chain as built, every failure,
/// which verifier decided, and the inputs it was asked about.
///
/// Stable shape (``schemaVersion``): every key is always present, `null` when it has no value. It
/// follows the conventions of ``ToolJSON`` (camelCase values, uppercase colon-separated hex).
/// A new key may appear without a version change; a key's meaning changing or a key going away
/// raises the version.
///
/// Each part of the record is a struct of its own with its own keys, so that a new part (a new
/// `var` on ``Record``, written in ``Record/encode(to:)``) extends it without touching the others.
enum EvaluationJSON {
    /// The version of the record's shape; consumers should check it.
    static let schemaVersion = ToolJSON.schemaVersion

    /// What the evaluation was asked: echoed so that a stored record says what it judged.
    struct Input: Encodable {
        @ExplicitNull var hostname: String?
        /// `--time` as given (Unix seconds), or null for "now".
        @ExplicitNull var time: Int64?
        /// The instant actually used, ISO 8601.
        let verificationTime: String
        /// The purpose in force (`server`, `client`, `any`), defaults applied.
        let purpose: String
        let profile: String
    }

    struct Record: Encodable {
        struct CertificateRecord: Encodable {
            let subject: String
            let issuer: String
            let serialNumber: String
            let notValidBefore: String
            let notValidAfter: String
            let sha256Fingerprint: String
            let publicKeyPin: String
        }
        struct FailureRecord: Encodable {
            let code: String
            @ExplicitNull var certificateIndex: Int?
            /// The library's own code, or null when the failure has none (the engine's own
            /// findings): 0 would read as a code, and is OpenSSL's "ok".
            @ExplicitNull var nativeCode: Int?
            let nativeDescription: String
        }
        var schemaVersion = EvaluationJSON.schemaVersion
        let backend: String
        let libraryVersion: String
        /// What was asked (`evaluate` and `compare`); null when the caller has no such inputs.
        @ExplicitNull var input: Input?
        /// `core` (the validation engine) or `native` (the library's own verifier).
        let engine: String
        /// The structural profile the engine applied; `null` for the native verifier, which has none.
        @ExplicitNull var profile: String?
        let trusted: Bool
        let result: String
        let chain: [CertificateRecord]
        let failures: [FailureRecord]
        let timeMicroseconds: Int?
        /// The RFC 5280 §6.1 policy sets of a trusted engine evaluation; `null` otherwise.
        @ExplicitNull var certificatePolicies: PolicyRecord? = nil
        /// What revocation checking found, per certificate of `chain` it covered; `[]` when off.
        var revocation: [RevocationRecord] = []
        /// What Certificate Transparency checking found; `null` without a CT policy.
        @ExplicitNull var certificateTransparency: TransparencyRecord?
        /// `compare` only: the native verifier's evaluation of the same request.
        var native: Nested?
        /// `evaluate` only: the rule beyond validation that decided (`--pin`, a pin set, a
        /// SecurityPolicy), when one did.
        var rule: RuleRecord?
    }

    /// The authority- and user-constrained policy sets, each sorted.
    struct PolicyRecord: Encodable {
        let authorityConstrained: [String]
        let userConstrained: [String]

        init(_ policies: ValidatedCertificatePolicies) {
            authorityConstrained = policies.authorityConstrained.sorted()
            userConstrained = policies.userConstrained.sorted()
        }
    }

    /// One certificate's revocation status: what answered and what it said.
    struct RevocationRecord: Encodable {
        let certificateIndex: Int
        /// `good`, `revoked` or `unknown` (no usable answer).
        let status: String
        /// `crl`, `ocspResponse`, `stapledOCSPResponse`, `fetchedOCSPResponse`, `fetchedCRL`,
        /// `cachedOCSPResponse`, `cachedCRL`, or null when nothing answered.
        @ExplicitNull var source: String?
        @ExplicitNull var revocationTime: String?
        @ExplicitNull var reason: String?
        let detail: String

        init(_ status: CertificateRevocationStatus) {
            certificateIndex = status.certificateIndex
            self.status = status.status.rawValue
            source = status.source.map(ToolJSON.name)
            revocationTime = status.revocationDate.map(ToolJSON.instant)
            reason = status.reason?.description
            detail = status.detail
        }
    }

    /// Which rule decided, and the pin that matched or why it refused.
    struct RuleRecord: Encodable {
        let rule: String
        let code: String?
        let message: String?
        let pin: String?
        let pinIndex: Int?
        /// A pin failure only: each certificate of the validated chain with its pin.
        var validatedChainPins: [PinFailureHelp.ChainPin]? = nil
    }

    /// A record inside a record (a class, since a struct cannot contain itself).
    final class Nested: Encodable {
        let record: Record
        init(_ record: Record) { self.record = record }
        func encode(to encoder: any Encoder) throws { try record.encode(to: encoder) }
    }

    static func record(
        _ evaluation: TrustEvaluation, backend: any TrustBackend, request: TrustEvaluationRequest, engine: TrustEngine, micros: Int? = nil
    ) -> Record {
        let iso = ISO8601DateFormatter()
        var record = Record(
            backend: backend.name,
            libraryVersion: backend.libraryVersion,
            engine: engine.rawValue,
            profile: engine == .core ? request.profile.rawValue : nil,
            trusted: evaluation.isTrusted,
            result: evaluation.result.rawValue,
            chain: evaluation.chain.map {
                .init(subject: $0.subject.description, issuer: $0.issuer.description, serialNumber: ToolJSON.hex(normalizing: $0.serialNumberHex),
                      notValidBefore: iso.string(from: $0.notValidBefore), notValidAfter: iso.string(from: $0.notValidAfter),
                      sha256Fingerprint: ToolJSON.hex($0.sha256Fingerprint), publicKeyPin: $0.publicKey.pin)
            },
            failures: evaluation.failures.map {
                .init(code: $0.code.identifier, certificateIndex: $0.certificateIndex, nativeCode: $0.libraryCode,
                      nativeDescription: $0.detail)
            },
            timeMicroseconds: micros)
        record.certificatePolicies = evaluation.certificatePolicies.map(PolicyRecord.init)
        record.revocation = evaluation.revocation.map(RevocationRecord.init)
        record.certificateTransparency = evaluation.certificateTransparency.map(TransparencyRecord.init)
        return record
    }

    /// - Parameters:
    ///   - trusted: the verdict when a rule beyond validation decided it (default: the evaluation's).
    ///   - rule: that rule.
    static func render(_ evaluation: TrustEvaluation, backend: any TrustBackend, request: TrustEvaluationRequest, engine: TrustEngine,
                       input: Input? = nil, trusted: Bool? = nil, rule: RuleRecord? = nil) -> String {
        var record = record(evaluation, backend: backend, request: request, engine: engine)
        record.rule = rule
        record.input = input
        if let trusted, trusted != record.trusted {
            record = Record(backend: record.backend, libraryVersion: record.libraryVersion, engine: record.engine,
                            profile: record.profile, trusted: trusted,
                            result: trusted ? TrustEvaluation.Result.proceed.rawValue : TrustEvaluation.Result.fatalTrustFailure.rawValue,
                            chain: record.chain, failures: record.failures, timeMicroseconds: record.timeMicroseconds,
                            native: nil, rule: rule)
            record.input = input
            if trusted { record.certificatePolicies = evaluation.certificatePolicies.map(PolicyRecord.init) }
            record.revocation = evaluation.revocation.map(RevocationRecord.init)
            record.certificateTransparency = evaluation.certificateTransparency.map(TransparencyRecord.init)
        }
        return encode(record)
    }

    /// The record of a run that ended in bad usage or unreadable input (exit 2): ``ToolJSON/error(_:exitStatus:)``.
    static func usageError(_ message: String) -> String { ToolJSON.error(message) }

    static func encode(_ value: some Encodable) -> String { ToolJSON.encode(value) }
}
