import Foundation

/// What one OCSP response or CRL says about one certificate, once judged by the engine.
enum RevocationAnswer {
    /// The answer is about this certificate and may be believed.
    case status(CertificateRevocationStatus.Status, revokedAt: Date?, reason: RevocationReason?, detail: String)
    /// The answer is about another certificate or another scope: it says nothing here.
    case notApplicable
    /// The answer is about this certificate but must not be believed (wrong signer, stale, …).
    case unusable(String)
}

/// The signer and time rules both kinds of answer share.
struct RevocationClock {
    let date: Date
    let skew: TimeInterval

    /// How old an OCSP response without nextUpdate may be (RFC 5019 §2.2.4 lets a responder omit
    /// it; then the answer is taken as good for a day from thisUpdate, no more).
    static let maximumAgeWithoutNextUpdate: TimeInterval = 86_400

    /// Why an answer produced at `thisUpdate` and due again at `nextUpdate` is not current, or nil.
    func staleness(thisUpdate: Date, nextUpdate: Date?) -> String? {
        if thisUpdate > date.addingTimeInterval(skew) { return "it is from the future (thisUpdate \(thisUpdate))" }
        if let nextUpdate {
            if date > nextUpdate.addingTimeInterval(skew) { return "it is stale (nextUpdate \(nextUpdate))" }
        } else if date.timeIntervalSince(thisUpdate) > Self.maximumAgeWithoutNextUpdate + skew {
            return "it is stale (no nextUpdate, thisUpdate \(thisUpdate) more than a day ago)"
        }
        return nil
    }
}
