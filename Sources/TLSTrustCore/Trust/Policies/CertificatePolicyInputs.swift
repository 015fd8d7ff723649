/// The caller's inputs to RFC 5280 §6.1 certificate-policy processing (§6.1.1 (c), (e), (f), (g)).
///
/// The default — every policy acceptable (anyPolicy), nothing required, mappings and anyPolicy
/// allowed — is what TLS verifiers use: the path must still satisfy every policy constraint its
/// CAs impose (a CA's requireExplicitPolicy, inhibitPolicyMapping, inhibitAnyPolicy), but the
/// caller asks for no policy of its own.
public struct CertificatePolicyInputs: Sendable, Hashable, CustomStringConvertible {
    /// The special policy OID anyPolicy (`2.5.29.32.0`, RFC 5280 §4.2.1.4).
    public static let anyPolicy = "2.5.29.32.0"

    /// user-initial-policy-set: the policies the caller accepts, in the trust anchor's policy
    /// domain (before any mapping). `[anyPolicy]` accepts every policy (a set that holds anyPolicy
    /// is kept as just `[anyPolicy]`).
    public var initialPolicySet: Set<String> { explicitPolicySet ?? [Self.anyPolicy] }
    /// The initial set when it is not `[anyPolicy]`. The default inputs hold no set at all: they
    /// are copied into every request and every verified-chain cache key, and a `Set` shared by
    /// every evaluation of the process is an object whose reference count all threads would write
    /// on every evaluation (cache-line ping-pong between cores).
    private let explicitPolicySet: Set<String>?
    /// initial-explicit-policy: the path must be valid for at least one policy of the initial set.
    public let requiresExplicitPolicy: Bool
    /// initial-policy-mapping-inhibit: policy mappings in the path are not honoured.
    public let inhibitsPolicyMapping: Bool
    /// initial-any-policy-inhibit: anyPolicy asserted by a certificate is not honoured (except by
    /// self-issued intermediates).
    public let inhibitsAnyPolicy: Bool

    /// The setting TLS verifiers use: anyPolicy, nothing explicit, nothing inhibited.
    public static let `default` = CertificatePolicyInputs(
        uncheckedInitialPolicySet: [anyPolicy], requiresExplicitPolicy: false, inhibitsPolicyMapping: false, inhibitsAnyPolicy: false)

    /// - Throws: `TLSTrustError` `.invalidArgument` when the set is empty or holds something that
    ///   is not a dotted OID (at least two arcs, the first 0–2, no leading zeros).
    public init(initialPolicySet: Set<String>, requiresExplicitPolicy: Bool = false,
                inhibitsPolicyMapping: Bool = false, inhibitsAnyPolicy: Bool = false) throws {
        guard !initialPolicySet.isEmpty else {
            throw TLSTrustError(.invalidArgument, "the initial certificate-policy set is empty (anyPolicy \(Self.anyPolicy) accepts every policy)")
        }
        for oid in initialPolicySet.sorted() where !Self.isDottedOID(oid) {
            throw TLSTrustError(.invalidArgument, "'\(oid)' is not a policy OID (dotted decimal, e.g. 2.23.140.1.2.1)")
        }
        // A set holding anyPolicy accepts every policy: the other members change nothing, so the
        // set is kept as [anyPolicy] and compares equal to it (no false "contradictory" input, no
        // needless native-verifier feature).
        let set = initialPolicySet.contains(Self.anyPolicy) ? [Self.anyPolicy] : initialPolicySet
        self.init(uncheckedInitialPolicySet: set, requiresExplicitPolicy: requiresExplicitPolicy,
                  inhibitsPolicyMapping: inhibitsPolicyMapping, inhibitsAnyPolicy: inhibitsAnyPolicy)
    }

    private init(uncheckedInitialPolicySet: Set<String>, requiresExplicitPolicy: Bool, inhibitsPolicyMapping: Bool, inhibitsAnyPolicy: Bool) {
        acceptsAnyPolicy = uncheckedInitialPolicySet.contains(Self.anyPolicy)
        explicitPolicySet = acceptsAnyPolicy ? nil : uncheckedInitialPolicySet
        self.requiresExplicitPolicy = requiresExplicitPolicy
        self.inhibitsPolicyMapping = inhibitsPolicyMapping
        self.inhibitsAnyPolicy = inhibitsAnyPolicy
    }

    /// Whether the initial set accepts every policy (then it is exactly `[anyPolicy]`).
    public let acceptsAnyPolicy: Bool

    /// Whether these are the default inputs (a native verifier needs no policy setting then).
    public var isDefault: Bool { acceptsAnyPolicy && !requiresExplicitPolicy && !inhibitsPolicyMapping && !inhibitsAnyPolicy }

    // Equality and hashing without touching the set in the common case: these inputs are part of
    // every verified-chain cache key, hashed on every cached evaluation (the hot path).
    public static func == (a: Self, b: Self) -> Bool {
        a.requiresExplicitPolicy == b.requiresExplicitPolicy && a.inhibitsPolicyMapping == b.inhibitsPolicyMapping
            && a.inhibitsAnyPolicy == b.inhibitsAnyPolicy && a.acceptsAnyPolicy == b.acceptsAnyPolicy
            && (a.acceptsAnyPolicy || a.initialPolicySet == b.initialPolicySet)
    }

    public func hash(into hasher: inout Hasher) {
        let flags = (requiresExplicitPolicy ? 1 : 0) | (inhibitsPolicyMapping ? 2 : 0) | (inhibitsAnyPolicy ? 4 : 0) | (acceptsAnyPolicy ? 8 : 0)
        hasher.combine(UInt8(flags))
        if !acceptsAnyPolicy { hasher.combine(initialPolicySet) }
    }

    /// Whether `text` is an OID in dotted-decimal form as X.509 encodes them: at least two arcs,
    /// the first 0, 1 or 2 (the second below 40 unless the first is 2), decimal digits without
    /// leading zeros, each arc below 2^63.
    public static func isDottedOID(_ text: String) -> Bool {
        let arcs = text.split(separator: ".", omittingEmptySubsequences: false)
        guard arcs.count >= 2 else { return false }
        var values: [UInt64] = []
        for arc in arcs {
            guard !arc.isEmpty, arc.utf8.count <= 19, arc.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  arc == "0" || arc.first != "0", let value = UInt64(arc), value < 1 << 63 else { return false }
            values.append(value)
        }
        return values[0] <= 2 && (values[0] == 2 || values[1] < 40)
    }

    public var description: String {
        var parts = [initialPolicySet.sorted().joined(separator: ",")]
        if requiresExplicitPolicy { parts.append("explicit") }
        if inhibitsPolicyMapping { parts.append("no mapping") }
        if inhibitsAnyPolicy { parts.append("no anyPolicy") }
        return parts.joined(separator: "; ")
    }
}

/// The certificate policies a trusted path was found valid for (RFC 5280 §6.1.5 (g), as RFC 9618
/// computes it from the policy graph). Both sets are in the trust anchor's policy domain, before
/// any mapping, which is the domain ``CertificatePolicyInputs/initialPolicySet`` is written in.
public struct ValidatedCertificatePolicies: Sendable, Hashable, CustomStringConvertible {
    /// authorities-constrained-policy-set: the policies the CAs of the path allow, whatever the
    /// caller asked for. Contains anyPolicy when the path is valid for any policy.
    public let authorityConstrained: Set<String>
    /// user-constrained-policy-set: the authority-constrained policies that are also in the
    /// caller's initial set (anyPolicy in the authority set admits each policy of the initial
    /// set). Empty means the path is valid for none of the caller's policies — acceptable only
    /// when no explicit policy was required, by the caller or by a CA.
    public let userConstrained: Set<String>

    public init(authorityConstrained: Set<String>, userConstrained: Set<String>) {
        self.authorityConstrained = authorityConstrained
        self.userConstrained = userConstrained
    }

    public var description: String {
        "authority-constrained {\(authorityConstrained.sorted().joined(separator: ", "))}, "
            + "user-constrained {\(userConstrained.sorted().joined(separator: ", "))}"
    }
}

extension TrustPolicy {
    /// RFC 5280 §6.1 certificate-policy inputs: which policies the caller accepts and whether the
    /// path must be valid for one of them.
    ///
    /// Policy processing always runs (a CA's own policyConstraints and inhibitAnyPolicy bind every
    /// evaluation); this policy sets the caller's side of it. Without it the inputs are the
    /// default, ``CertificatePolicyInputs/default``. A trusted evaluation reports what the path is
    /// valid for in ``TrustEvaluation/certificatePolicies``.
    ///
    /// ```swift
    /// // EV-style: the path must be valid for the CA/B Forum OV policy
    /// let policies: [TrustPolicy] = [.ssl(hostname: host), .certificatePolicies(["2.23.140.1.2.2"], requireExplicitPolicy: true)]
    /// ```
    ///
    /// Two of these policies in one trust must be equal; different ones are contradictory
    /// (`invalidPolicy`), as with two host names.
    ///
    /// - Parameters:
    ///   - acceptable: user-initial-policy-set (§6.1.1 (c)), dotted OIDs; default anyPolicy. An
    ///     empty set or a string that is not an OID makes the evaluation `invalidPolicy`.
    ///   - requireExplicitPolicy: initial-explicit-policy (§6.1.1 (f)).
    ///   - inhibitPolicyMapping: initial-policy-mapping-inhibit (§6.1.1 (e)).
    ///   - inhibitAnyPolicy: initial-any-policy-inhibit (§6.1.1 (g)).
    public static func certificatePolicies(
        _ acceptable: Set<String> = [CertificatePolicyInputs.anyPolicy], requireExplicitPolicy: Bool = false,
        inhibitPolicyMapping: Bool = false, inhibitAnyPolicy: Bool = false
    ) -> TrustPolicy {
        TrustPolicy(kind: .certificatePolicies(acceptable, explicit: requireExplicitPolicy,
                                               inhibitMapping: inhibitPolicyMapping, inhibitAny: inhibitAnyPolicy))
    }

    /// The peer must be named by this e-mail address: an rfc822Name in the leaf's subjectAltName
    /// (S/MIME-style identity, RFC 8550 §3). The local part is compared exactly, the domain
    /// case-insensitively; a presented rfc822Name that is not a valid address matches nothing.
    /// Name constraints of type rfc822Name apply to the leaf as always.
    ///
    /// Not combined with an SSL host name (contradictory: `invalidPolicy`). Several e-mail
    /// policies require every address. An `address` that is not a plain ASCII `local@domain`
    /// (dot-atom local part of at most 64 characters, a DNS domain; no quoted local parts, no
    /// address literals) makes the evaluation `invalidPolicy`.
    public static func email(address: String) -> TrustPolicy {
        TrustPolicy(kind: .email(address))
    }

    /// The leaf's keyUsage extension must assert every bit of `usage` (RFC 5280 §4.2.1.3).
    ///
    /// A leaf without the keyUsage extension satisfies it: RFC 5280 says the extension's absence
    /// leaves the key's use unrestricted, and Apple's policy checks, OpenSSL and this engine's
    /// extended-key-usage rule read absence the same way. Several key-usage policies add up.
    /// An empty `usage` makes the evaluation `invalidPolicy`.
    public static func keyUsage(_ usage: KeyUsage) -> TrustPolicy {
        TrustPolicy(kind: .keyUsage(usage))
    }
}

extension KeyUsage {
    /// The bit named as in RFC 5280 §4.2.1.3 (`digitalSignature`, `nonRepudiation`,
    /// `keyEncipherment`, `dataEncipherment`, `keyAgreement`, `keyCertSign`, `cRLSign`,
    /// `encipherOnly`, `decipherOnly`), or nil for any other name.
    public init?(name: String) {
        guard let bit = Self.names.first(where: { $0.1 == name })?.0 else { return nil }
        self = bit
    }

    /// The nine bit names in bit order, as ``init(name:)`` reads them.
    public static var allNames: [String] { names.map(\.1) }
}
