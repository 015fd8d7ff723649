/// An e-mail address as the engine compares them (RFC 5321 §4.1.2 Mailbox, ASCII only).
///
/// Only the plain form is accepted: a dot-atom local part (atext characters, single dots, not at
/// either end; at most 64 octets) and a DNS domain (``DNSName``). Quoted local parts, address
/// literals (`user@[192.0.2.1]`), non-ASCII (SMTPUTF8) and anything with a second `@` are not:
/// they are rare in certificates, and every alternative form is one more way for two verifiers to
/// disagree about who a certificate names. A presented rfc822Name in such a form names nobody.
struct EmailAddress: Hashable, CustomStringConvertible {
    /// Compared exactly (RFC 5321 §2.4: the local part may be case-sensitive).
    let localPart: String
    /// Lowercased: domains compare case-insensitively.
    let domain: String

    init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard let at = utf8.firstIndex(of: UInt8(ascii: "@")), utf8.lastIndex(of: UInt8(ascii: "@")) == at else { return nil }
        let local = utf8[..<at]
        let domainBytes = utf8[(at + 1)...]
        guard !local.isEmpty, local.count <= 64, local.first != UInt8(ascii: "."), local.last != UInt8(ascii: "."),
              !zip(local, local.dropFirst()).contains(where: { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") }),
              local.allSatisfy({ Self.isAtext($0) || $0 == UInt8(ascii: ".") }) else { return nil }
        let domainText = String(decoding: domainBytes, as: UTF8.self)
        guard DNSName.labels(domainText) != nil else { return nil }
        localPart = String(decoding: local, as: UTF8.self)
        domain = domainText.lowercased()
    }

    /// RFC 5322 §3.2.3 atext: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    private static func isAtext(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(b)
        }
    }

    var description: String { "\(localPart)@\(domain)" }
}

/// The request's inputs that come from policies beyond host, purpose, depth and profile:
/// certificate-policy inputs, e-mail identities and required key usages, gathered and checked
/// for contradictions by `Trust.makeRequest(for:)`.
struct RequestPolicyInputs {
    private(set) var certificatePolicies: CertificatePolicyInputs?
    private(set) var emailAddresses: [String] = []
    private(set) var keyUsage: KeyUsage = []

    mutating func add(_ kind: TrustPolicy.Kind) throws {
        switch kind {
        case .certificatePolicies(let set, let explicit, let inhibitMapping, let inhibitAny):
            let inputs = try CertificatePolicyInputs(initialPolicySet: set, requiresExplicitPolicy: explicit,
                                                     inhibitsPolicyMapping: inhibitMapping, inhibitsAnyPolicy: inhibitAny)
            if let certificatePolicies, certificatePolicies != inputs {
                throw TLSTrustError(.invalidArgument, "contradictory policies: certificate policies \(certificatePolicies) and \(inputs)")
            }
            certificatePolicies = inputs
        case .email(let address):
            guard let parsed = EmailAddress(address) else {
                throw TLSTrustError(.invalidArgument, "'\(address)' is not an e-mail address the engine accepts (local@domain, dot-atom local part, DNS domain)")
            }
            if !emailAddresses.contains(parsed.description) { emailAddresses.append(parsed.description) }
        case .keyUsage(let usage):
            guard !usage.isEmpty else { throw TLSTrustError(.invalidArgument, "a key-usage policy with no bit set requires nothing") }
            keyUsage.formUnion(usage)
        default:
            return
        }
    }
}

/// What the request requires of the leaf beyond its host name and purpose: the e-mail
/// addresses it must carry and the keyUsage bits it must assert. One place for both rules.
enum LeafRequirements {
    static func failures(of leaf: Certificate, for request: TrustEvaluationRequest) -> [TrustFailure] {
        var out: [TrustFailure] = []
        if !request.emailAddresses.isEmpty {
            let presented = Set(leaf.emailAddresses.compactMap(EmailAddress.init))
            for address in request.emailAddresses {
                guard let wanted = EmailAddress(address), !presented.contains(wanted) else { continue }
                let names = leaf.emailAddresses.isEmpty ? "no rfc822Name in its subjectAltName" : "rfc822Names \(leaf.emailAddresses)"
                out.append(TrustFailure(.emailAddressMismatch, certificateIndex: 0, detail: "\(address): the leaf has \(names)"))
            }
        }
        // RFC 5280 §4.2.1.3: without the extension the key's use is unrestricted.
        if let usage = leaf.keyUsage, !usage.isSuperset(of: request.requiredKeyUsage) {
            let missing = request.requiredKeyUsage.subtracting(usage)
            out.append(TrustFailure(.invalidKeyUsage, certificateIndex: 0, detail: "keyUsage lacks \(missing.names.joined(separator: ", ")) (asserts \(usage.names.joined(separator: ", ")))"))
        }
        return out
    }
}
