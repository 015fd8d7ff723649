import Foundation
import TLSTrust
import TLSTrustToolSupport

/// The `--json` record of an evaluation: verdict, result kind, the chain as built, every failure,
/// which verifier decided, and the inputs it was asked about.
///
/// Stable shape (``schemaVersion``): every key is always present, `null` when it has no value;
/// hex (serial numbers, fingerprints) is uppercase, colon-separated, as `openssl x509` prints it.
/// A new key may appear without a version change; a key's meaning changing or a key going away
/// raises the version.
enum EvaluationJSON {
    /// The version of the record's shape; consumers should check it.
    static let schemaVersion = 1

    /// What the evaluation was asked: echoed so that a stored record says what it judged.
    struct Input: Encodable {
        let hostname: String?
        /// `--time` as given (Unix seconds), or null for "now".
        let time: Int64?
        /// The instant actually used, ISO 8601.
        let verificationTime: String
        /// The purpose in force (`server`, `client`, `any`), defaults applied.
        let purpose: String
        let profile: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(hostname, forKey: .hostname)
            try container.encode(time, forKey: .time)
            try container.encode(verificationTime, forKey: .verificationTime)
            try container.encode(purpose, forKey: .purpose)
            try container.encode(profile, forKey: .profile)
        }

        private enum CodingKeys: String, CodingKey { case hostname, time, verificationTime, purpose, profile }
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
            let certificateIndex: Int?
            /// The library's own code, or null when the failure has none (the engine's own
            /// findings): 0 would read as a code, and is OpenSSL's "ok".
            let nativeCode: Int?
            let nativeDescription: String

            // Written by hand so that `certificateIndex` is always present, as `null` when the
            // failure concerns no single certificate: the synthesized encoder would drop the key,
            // and consumers of the JSON should see one stable shape.
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(code, forKey: .code)
                try container.encode(certificateIndex, forKey: .certificateIndex)
                try container.encode(nativeCode, forKey: .nativeCode)
                try container.encode(nativeDescription, forKey: .nativeDescription)
            }

            private enum CodingKeys: String, CodingKey {
                case code, certificateIndex, nativeCode, nativeDescription
            }
        }
        var schemaVersion = EvaluationJSON.schemaVersion
        let backend: String
        let libraryVersion: String
        /// What was asked (`evaluate` and `compare`); null when the caller has no such inputs.
        var input: Input?
        /// `core` (the validation engine) or `native` (the library's own verifier).
        let engine: String
        /// The structural profile the engine applied; `null` for the native verifier, which has none.
        let profile: String?
        let trusted: Bool
        let result: String
        let chain: [CertificateRecord]
        let failures: [FailureRecord]
        let timeMicroseconds: Int?
        /// The RFC 5280 §6.1 policy sets of a trusted engine evaluation; `null` otherwise.
        var certificatePolicies: PolicyRecord? = nil
        /// What revocation checking found, per certificate of `chain` it covered; `[]` when off.
        var revocation: [RevocationRecord] = []
        /// What Certificate Transparency checking found; `null` without a CT policy.
        var certificateTransparency: TransparencyRecord?
        /// `compare` only: the native verifier's evaluation of the same request.
        var native: Nested?
        /// `evaluate` only: the rule beyond validation that decided (`--pin`, a pin set, a
        /// SecurityPolicy), when one did.
        var rule: RuleRecord?

        // Written by hand so that `profile` is always present (`null` for the native verifier).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(schemaVersion, forKey: .schemaVersion)
            try container.encode(input, forKey: .input)
            try container.encode(backend, forKey: .backend)
            try container.encode(libraryVersion, forKey: .libraryVersion)
            try container.encode(engine, forKey: .engine)
            try container.encode(profile, forKey: .profile)
            try container.encode(trusted, forKey: .trusted)
            try container.encode(result, forKey: .result)
            try container.encode(chain, forKey: .chain)
            try container.encode(failures, forKey: .failures)
            try container.encodeIfPresent(timeMicroseconds, forKey: .timeMicroseconds)
            try container.encodeIfPresent(native, forKey: .native)
            try container.encodeIfPresent(rule, forKey: .rule)
            try container.encode(certificatePolicies, forKey: .certificatePolicies)
            try container.encode(revocation, forKey: .revocation)
            try container.encode(certificateTransparency, forKey: .certificateTransparency)
        }

        private enum CodingKeys: String, CodingKey {
            case schemaVersion, input, backend, libraryVersion, engine, profile, trusted, result, chain, failures, timeMicroseconds, native, rule
            case certificatePolicies, revocation
            case certificateTransparency
        }
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
        /// `crl`, `ocsp-response`, `stapled-ocsp-response`, `fetched-ocsp-response`, `fetched-crl`,
        /// `cached-ocsp-response`, `cached-crl`, or null when nothing answered.
        let source: String?
        let revocationTime: String?
        let reason: String?
        let detail: String

        init(_ status: CertificateRevocationStatus) {
            certificateIndex = status.certificateIndex
            self.status = status.status.rawValue
            source = status.source?.rawValue
            revocationTime = status.revocationDate.map { ISO8601DateFormatter().string(from: $0) }
            reason = status.reason?.description
            detail = status.detail
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(certificateIndex, forKey: .certificateIndex)
            try c.encode(status, forKey: .status)
            try c.encode(source, forKey: .source)
            try c.encode(revocationTime, forKey: .revocationTime)
            try c.encode(reason, forKey: .reason)
            try c.encode(detail, forKey: .detail)
        }

        private enum CodingKeys: String, CodingKey { case certificateIndex, status, source, revocationTime, reason, detail }
    }

    /// Which rule decided, and the pin that matched or why it refused.
    struct RuleRecord: Encodable {
        let rule: String
        let code: String?
        let message: String?
        let pin: String?
        let pinIndex: Int?
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
                .init(subject: $0.subject.description, issuer: $0.issuer.description, serialNumber: $0.serialNumberHex.uppercased(),
                      notValidBefore: iso.string(from: $0.notValidBefore), notValidAfter: iso.string(from: $0.notValidAfter),
                      sha256Fingerprint: $0.sha256FingerprintHex.uppercased(), publicKeyPin: $0.publicKey.pin)
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

    /// The record of a run that ended in bad usage or unreadable input (exit 2), so that a
    /// `--json` consumer always finds one object on standard output: `{"schemaVersion", "error":
    /// {"exitStatus": 2, "message"}}`.
    static func usageError(_ message: String) -> String {
        struct ErrorRecord: Encodable {
            struct Body: Encodable { let exitStatus: Int; let message: String }
            let schemaVersion: Int
            let error: Body
        }
        return encode(ErrorRecord(schemaVersion: schemaVersion, error: .init(exitStatus: 2, message: message)))
    }

    /// Pretty-printed, sorted JSON, with the characters that act on a terminal escaped.
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return TerminalText.escapeJSON(String(decoding: data, as: UTF8.self))
    }
}
