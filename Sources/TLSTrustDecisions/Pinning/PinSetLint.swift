import Foundation
import TLSTrustCore

extension PinSet {
    /// Dangerous settings of this set: a single pin while enforcing, an expired set, and — given
    /// the chain the host serves today — no pin outside that chain (no real backup) or a
    /// whole-certificate hash written as an SPKI pin.
    ///
    /// - Parameters:
    ///   - chain: the host's current chain, leaf first (optional; enables the two chain checks).
    ///   - date: when to judge expiry; default now.
    public func lint(chain: [Certificate]? = nil, at date: Date = Date()) -> [LintWarning] {
        guard !excludesParentPolicy else { return [] }
        var warnings: [LintWarning] = []
        if isExpired(at: date), let expiration {
            warnings.append(LintWarning(.expiredPinSet, subject: domain,
                "the pin set expired on \(ISO8601DateFormatter().string(from: expiration)): it no longer applies, only default validation runs"))
        }
        for (i, pin) in pins.enumerated() where pin.algorithm.isWeak {
            warnings.append(LintWarning(.weakPinDigest, subject: domain,
                "pins[\(i)] is a \(pin.algorithm) pin (\(pin.text)): applied, but SHA-1 is broken for collisions; replace it with the sha256/ pin of the same key ('tlstrust pin')"))
        }
        if enforces && Set(pins.map(PinKey.init)).count < 2 {
            warnings.append(LintWarning(.singlePin, subject: domain,
                "one pin while enforcing: if that key is lost or rotated, every client is locked out; add a backup pin"))
        }
        if let chain, !chain.isEmpty {
            let keys = chain.map(\.publicKey)
            for (i, pin) in pins.enumerated() {
                if let c = chain.firstIndex(where: { pin.isCertificateHash(of: $0) }) {
                    warnings.append(LintWarning(.certificateHashAsPin, subject: domain,
                        "pins[\(i)] is the \(pin.algorithm) hash of the whole certificate \(c) (\(chain[c].subject)), not of its public key; it never matches — use 'tlstrust pin'"))
                }
            }
            if pins.count > 0 && pins.allSatisfy({ pin in keys.contains(where: pin.matches) }) {
                warnings.append(LintWarning(.noBackupPin, subject: domain,
                    "every pin matches a key of the current chain: none is a backup for a key outside it; add the pin of a spare key kept offline"))
            }
        }
        return warnings
    }
}

extension PinningConfiguration {
    /// ``PinSet/lint(chain:at:)`` of every set, in domain order.
    ///
    /// - Parameters:
    ///   - chains: the current chain of some hosts, by host name (a set is checked with the chain
    ///     of its own domain).
    ///   - date: when to judge expiry; default now.
    public func lint(chains: [String: [Certificate]] = [:], at date: Date = Date()) -> [LintWarning] {
        let normalized = Dictionary(chains.map { (($0.key.hasSuffix(".") ? String($0.key.dropLast()) : $0.key).lowercased(), $0.value) },
                                    uniquingKeysWith: { a, _ in a })
        return sortedPinSets.flatMap { $0.lint(chain: normalized[$0.domain], at: date) }
    }
}
