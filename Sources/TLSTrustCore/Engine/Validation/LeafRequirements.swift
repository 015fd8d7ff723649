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
