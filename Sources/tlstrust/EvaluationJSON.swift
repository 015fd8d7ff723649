import Foundation
import TLSTrust

/// The `--json` record of an evaluation: verdict, result kind, the chain as built, every failure.
enum EvaluationJSON {
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
            let nativeCode: Int
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
        let backend: String
        let libraryVersion: String
        let trusted: Bool
        let result: String
        let chain: [CertificateRecord]
        let failures: [FailureRecord]
        let timeMicroseconds: Int?
        /// The rule beyond validation that decided (`--pin`, a pin set, a SecurityPolicy), if any.
        var rule: RuleRecord? = nil
    }

    /// Which rule decided, and the pin that matched or why it refused.
    struct RuleRecord: Encodable {
        let rule: String
        let code: String?
        let message: String?
        let pin: String?
        let pinIndex: Int?
    }

    static func record(_ evaluation: TrustEvaluation, backend: any TrustBackend, micros: Int? = nil) -> Record {
        let iso = ISO8601DateFormatter()
        return Record(
            backend: backend.name,
            libraryVersion: backend.libraryVersion,
            trusted: evaluation.isTrusted,
            result: evaluation.result.rawValue,
            chain: evaluation.chain.map {
                .init(subject: $0.subject.description, issuer: $0.issuer.description, serialNumber: $0.serialNumberHex,
                      notValidBefore: iso.string(from: $0.notValidBefore), notValidAfter: iso.string(from: $0.notValidAfter),
                      sha256Fingerprint: $0.sha256FingerprintHex, publicKeyPin: $0.publicKey.pin)
            },
            failures: evaluation.failures.map {
                .init(code: $0.code.identifier, certificateIndex: $0.certificateIndex, nativeCode: $0.nativeCode,
                      nativeDescription: $0.nativeDescription)
            },
            timeMicroseconds: micros)
    }

    static func render(_ evaluation: TrustEvaluation, backend: any TrustBackend, rule: RuleRecord? = nil) -> String {
        var record = record(evaluation, backend: backend)
        record.rule = rule
        if let rule, rule.code != nil {
            // A rule refused a chain that validated: the record's verdict is the rule's.
            record = Record(backend: record.backend, libraryVersion: record.libraryVersion, trusted: false,
                            result: record.trusted ? TrustEvaluation.Result.fatalTrustFailure.rawValue : record.result,
                            chain: record.chain, failures: record.failures, timeMicroseconds: record.timeMicroseconds, rule: rule)
        }
        return encode(record)
    }

    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
