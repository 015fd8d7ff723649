/// RFC 5280 §6.1 certificate-policy processing of one candidate path, with the valid-policy
/// *graph* of RFC 9618 in place of RFC 5280's valid_policy_tree.
///
/// Why a graph: in the tree, a policy that several parents expect is copied under each of them,
/// so a few certificates mapping many policies to many others multiply the tree exponentially
/// (CVE-2023-0464 in OpenSSL, the same in Go and BoringSSL). In the graph each policy appears at
/// most once per depth, with a *set* of parents, so a level holds at most one node per policy the
/// certificate names (plus the mapped ones) and the work is polynomial; it is paid from the
/// ``BudgetMeter`` all the same (`policyGraphOperations`), so no input is bounded by luck.
///
/// Certificates are numbered as in §6.1: 1 is the one the anchor issued, n the leaf. The trust
/// anchor is an input, not part of the path: its own policy extensions are not processed. A path
/// of one (the leaf is an anchor) has n = 0.
///
/// Outputs (§6.1.5 (g) as RFC 9618 computes it): the authority-constrained set is the valid
/// policy of each node whose parent is anyPolicy — the policies of the anchor's domain the path
/// is valid for, before mapping — plus anyPolicy when an anyPolicy node reaches depth n; the
/// user-constrained set is its intersection with the caller's initial set (anyPolicy in the
/// authority set admitting every policy of the initial set). Validation fails when
/// explicit_policy reached 0 and the user-constrained set is empty.
struct PolicyGraph {
    /// A node of one depth: the policies it expects in the next certificate and the valid
    /// policies of its parents one depth up (the node's own valid policy is its key in the level).
    struct Node {
        var expected: Set<String>
        var parents: Set<String>
    }
    typealias Level = [String: Node]

    /// The verdict on one path.
    struct Outcome {
        /// Why the path fails policy processing, at which chain index (0 = leaf), or nil.
        var failure: (index: Int?, message: String)?
        /// The policy sets, when the path passed.
        var policies: ValidatedCertificatePolicies?
    }

    static let anyPolicy = CertificatePolicyInputs.anyPolicy

    /// Processes `path` (leaf first, anchor last) under `inputs`.
    static func process(_ path: [Certificate], inputs: CertificatePolicyInputs, meter: inout BudgetMeter) throws -> Outcome {
        let n = path.count - 1
        var explicitPolicy = inputs.requiresExplicitPolicy ? 0 : n + 1
        var inhibitAnyPolicy = inputs.inhibitsAnyPolicy ? 0 : n + 1
        var policyMapping = inputs.inhibitsPolicyMapping ? 0 : n + 1
        // levels[d] holds the nodes of depth d; nil is the NULL graph of §6.1.3 (e).
        var levels: [Level]? = [[anyPolicy: Node(expected: [anyPolicy], parents: [])]]

        for i in stride(from: 1, through: n, by: 1) {
            let index = n - i
            let certificate = path[index]
            let ext = certificate.fields.policyExtensions

            // §6.1.3 (d), (e).
            if let policies = ext.policies, var graph = levels {
                let anyAllowed = inhibitAnyPolicy > 0 || (i < n && certificate.isSelfIssued)
                graph.append(try level(for: policies, below: graph[i - 1], anyAllowed: anyAllowed, meter: &meter))
                levels = try pruned(graph, meter: &meter)
            } else {
                levels = nil
            }
            // §6.1.3 (f).
            if explicitPolicy == 0 && levels == nil {
                return Outcome(failure: (index, "no certificate policy is valid for the path here and an explicit policy is required"
                                         + " (RFC 5280 §6.1.3 (f))\(ext.policies == nil ? ": the certificate has no certificatePolicies" : "")"))
            }
            guard i < n else {
                // Wrap-up, §6.1.5 (a), (b).
                if explicitPolicy > 0 { explicitPolicy -= 1 }
                if ext.requireExplicitPolicy == 0 { explicitPolicy = 0 }
                break
            }

            // Preparation for certificate i+1, §6.1.4 (a), (b).
            if let mappings = ext.mappings {
                if let bad = mappings.first(where: { $0.issuerDomain == anyPolicy || $0.subjectDomain == anyPolicy }) {
                    return Outcome(failure: (index, "policyMappings maps \(bad.issuerDomain) to \(bad.subjectDomain): anyPolicy may not be mapped (RFC 5280 §6.1.4 (a))"))
                }
                if var graph = levels {
                    try map(&graph[i], mappings, honoured: policyMapping > 0, meter: &meter)
                    levels = try pruned(graph, meter: &meter)
                }
            }
            // §6.1.4 (h), (i), (j).
            if !certificate.isSelfIssued {
                if explicitPolicy > 0 { explicitPolicy -= 1 }
                if policyMapping > 0 { policyMapping -= 1 }
                if inhibitAnyPolicy > 0 { inhibitAnyPolicy -= 1 }
            }
            if let r = ext.requireExplicitPolicy { explicitPolicy = min(explicitPolicy, r) }
            if let m = ext.inhibitPolicyMapping { policyMapping = min(policyMapping, m) }
            if let a = ext.inhibitAnyPolicy { inhibitAnyPolicy = min(inhibitAnyPolicy, a) }
        }

        // §6.1.5 (g): the outputs.
        var authority = Set<String>()
        if let graph = levels {
            for level in graph {
                try meter.spendPolicyOperations(level.count)
                for (policy, node) in level where policy != anyPolicy && node.parents.contains(anyPolicy) {
                    authority.insert(policy)
                }
            }
            if graph[n][anyPolicy] != nil { authority.insert(anyPolicy) }
        }
        let user: Set<String>
        if inputs.acceptsAnyPolicy {
            user = authority
        } else if authority.contains(anyPolicy) {
            user = inputs.initialPolicySet
        } else {
            user = authority.intersection(inputs.initialPolicySet)
        }
        let policies = ValidatedCertificatePolicies(authorityConstrained: authority, userConstrained: user)
        if explicitPolicy == 0 && user.isEmpty {
            let why = levels == nil ? "no certificate policy is valid for the whole path"
                : "the path is valid only for {\(authority.sorted().joined(separator: ", "))}, none of the acceptable {\(inputs.initialPolicySet.sorted().joined(separator: ", "))}"
            return Outcome(failure: (nil, "\(why), and an explicit policy is required (RFC 5280 §6.1.5 (g))"))
        }
        return Outcome(policies: policies)
    }

    /// §6.1.3 (d)(1), (d)(2): the nodes of depth i for a certificate asserting `policies`, under
    /// the nodes of depth i-1.
    private static func level(for policies: [String], below previous: Level, anyAllowed: Bool, meter: inout BudgetMeter) throws -> Level {
        var level: Level = [:]
        for policy in policies where policy != anyPolicy {
            try meter.spendPolicyOperations(previous.count)
            var parents = Set(previous.compactMap { $0.value.expected.contains(policy) ? $0.key : nil })
            if parents.isEmpty && previous[anyPolicy] != nil { parents = [anyPolicy] }
            if !parents.isEmpty { level[policy] = Node(expected: [policy], parents: parents) }
        }
        if anyAllowed && policies.contains(anyPolicy) {
            // Every expected policy of depth i-1 not already a node of depth i becomes one,
            // under every node that expects it (RFC 9618's rewrite of (d)(2)).
            let explicit = Set(level.keys)
            for (parent, node) in previous {
                try meter.spendPolicyOperations(node.expected.count)
                for expected in node.expected where !explicit.contains(expected) {
                    level[expected, default: Node(expected: [expected], parents: [])].parents.insert(parent)
                }
            }
        }
        return level
    }

    /// §6.1.4 (b): applies `mappings` to the nodes of depth i. Honoured (policy_mapping > 0), each
    /// mapped policy expects the policies it maps to — a new node under anyPolicy when only
    /// anyPolicy is at depth i; inhibited, the mapped policies' nodes are deleted.
    private static func map(_ level: inout Level, _ mappings: [(issuerDomain: String, subjectDomain: String)],
                            honoured: Bool, meter: inout BudgetMeter) throws {
        try meter.spendPolicyOperations(mappings.count)
        var targets: [String: Set<String>] = [:]
        for m in mappings { targets[m.issuerDomain, default: []].insert(m.subjectDomain) }
        for (issuerPolicy, subjectPolicies) in targets {
            if !honoured {
                level[issuerPolicy] = nil
            } else if level[issuerPolicy] != nil {
                level[issuerPolicy]?.expected = subjectPolicies
            } else if level[anyPolicy] != nil {
                level[issuerPolicy] = Node(expected: subjectPolicies, parents: [anyPolicy])
            }
        }
    }

    /// Deletes, from the deepest level up, every node that no node one depth down has as a
    /// parent; nil (the NULL graph) when the deepest level is empty. Stops at the first level
    /// that loses nothing (the levels above it cannot lose anything either), so that each
    /// certificate pays for one level plus what it deletes, not for the whole graph.
    private static func pruned(_ graph: [Level], meter: inout BudgetMeter) throws -> [Level]? {
        guard let deepest = graph.last, !deepest.isEmpty else { return nil }
        var graph = graph
        for depth in stride(from: graph.count - 2, through: 0, by: -1) {
            var referenced = Set<String>()
            for node in graph[depth + 1].values {
                try meter.spendPolicyOperations(node.parents.count)
                referenced.formUnion(node.parents)
            }
            let kept = graph[depth].filter { referenced.contains($0.key) }
            if kept.count == graph[depth].count { break }
            graph[depth] = kept
        }
        return graph
    }
}
