import ArgumentParser
import TLSTrust

/// `--policy`, `--require-explicit-policy`, `--inhibit-policy-mapping`, `--inhibit-any-policy`,
/// `--email` and `--key-usage` (CLI-CONTRACT.md): checked
/// at parse time, so that a malformed OID, an unknown key-usage name or `--email` with
/// `--hostname` is bad usage (exit 2), never a verdict.
extension EvaluationOptions {
    func validateIdentityAndPolicyOptions() throws {
        for oid in policyOIDs where !CertificatePolicyInputs.isDottedOID(oid) {
            throw ValidationError("--policy '\(oid)' is not an OID in dotted-decimal form (e.g. 2.23.140.1.2.1; anyPolicy is 2.5.29.32.0)")
        }
        if email != nil && hostname != nil {
            throw ValidationError("--email and --hostname contradict each other: a peer is named either by an e-mail address or by a host")
        }
        for name in keyUsages where KeyUsage(name: name) == nil {
            throw ValidationError("--key-usage '\(name)' is not a keyUsage bit; valid names: \(KeyUsage.allNames.joined(separator: ", "))")
        }
    }

    /// The policies these options add; the engine checks the address itself (an invalid one is exit 2).
    var identityAndPolicyOptions: [TrustPolicy] {
        var out: [TrustPolicy] = []
        if !policyOIDs.isEmpty || requireExplicitPolicy || inhibitPolicyMapping || inhibitAnyPolicy {
            out.append(.certificatePolicies(policyOIDs.isEmpty ? [CertificatePolicyInputs.anyPolicy] : Set(policyOIDs),
                                            requireExplicitPolicy: requireExplicitPolicy,
                                            inhibitPolicyMapping: inhibitPolicyMapping, inhibitAnyPolicy: inhibitAnyPolicy))
        }
        if let email { out.append(.email(address: email)) }
        let usage = keyUsages.compactMap(KeyUsage.init(name:)).reduce(into: KeyUsage()) { $0.formUnion($1) }
        if !usage.isEmpty { out.append(.keyUsage(usage)) }
        return out
    }
}
