import Foundation
import TLSTrust

/// `inspect`'s lines for a certificate's embedded SCTs: each SCT's log ID and time, read from the
/// SCT list extension (no log list is needed to list them; judging them needs one, `evaluate`).
enum TransparencySummary {
    static func lines(of certificate: Certificate) -> [(String, String)] {
        guard let value = certificate.embeddedSCTListExtensionValue else { return [] }
        let list: SignedCertificateTimestampList
        do {
            list = try SignedCertificateTimestampList(extensionValue: Array(value))
        } catch {
            return [("SCTs", "unreadable: \(error)")]
        }
        let iso = ISO8601DateFormatter()
        return list.entries.enumerated().map { index, entry in
            let text = entry.timestamp.map { "log \(Data($0.logID).base64EncodedString()) at \(iso.string(from: $0.date))" }
                ?? "unreadable: \(entry.problem ?? "malformed")"
            return ("SCT \(index + 1)", text)
        }
    }
}
