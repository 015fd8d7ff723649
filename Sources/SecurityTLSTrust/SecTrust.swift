import TLSTrust

/// The result of a trust evaluation, with Apple's raw values (`SecTrustResultType`).
public enum SecTrustResultType: UInt32, Sendable {
    case invalid = 0
    case proceed = 1
    @available(*, deprecated) case confirm = 2
    case deny = 3
    case unspecified = 4
    case recoverableTrustFailure = 5
    case fatalTrustFailure = 6
    case otherError = 7
}

/// A certificate chain to evaluate with policies, anchors and a date, as `SecTrust` on Apple
/// platforms: a reference type, equal and hashed by identity, `Sendable` (its settings are
/// guarded by a lock). Changing a setting discards the previous result; results are computed on
/// demand, once, by TLSTrust's engine on the current backend (see `SecTrustEnvironment`).
public final class SecTrust: Hashable, Sendable, CustomStringConvertible {
    struct Outcome {
        let evaluation: TrustEvaluation
        let status: OSStatus
        let result: SecTrustResultType
        let chain: [SecCertificate]
        let date: Date
        let message: String
        /// Whether revocation status was consulted: its answers (an OCSP response's nextUpdate, a
        /// CRL's) can lapse while the chain stays valid.
        let consultedRevocation: Bool

        /// How long an outcome that consulted revocation answers for "now": long enough that the
        /// accessors called after an evaluation (chain, count, properties) do not check — or fetch
        /// — again, short enough that a lapsed answer is not relied on for long.
        static let revocationReuse: TimeInterval = 60

        /// Whether this outcome, computed for `date`, is still the answer at `now`.
        func stillHolds(at now: Date) -> Bool {
            if consultedRevocation {
                guard now >= date, now.timeIntervalSince(date) < Self.revocationReuse else { return false }
                if !evaluation.isTrusted { return true }
            }
            guard evaluation.isTrusted else { return false }
            let from = evaluation.chain.map(\.notValidBefore).max() ?? .distantFuture
            let until = evaluation.chain.map(\.notValidAfter).min() ?? .distantPast
            return now >= from && now <= until
        }
    }

    struct State {
        var certificates: [SecCertificate]
        var policies: [SecPolicy]
        /// nil: the default (system) anchors.
        var anchors: [SecCertificate]?
        var anchorsOnly = false
        var verifyDate: Date?
        /// `SecTrustSetNetworkFetchAllowed`; nil: Apple's default (see `allowsNetworkFetch`).
        var networkFetchAllowed: Bool?
        /// DER OCSPResponses given with `SecTrustSetOCSPResponse`.
        var ocspResponses: [[UInt8]] = []
        /// CRLs given with `setCertificateRevocationLists(_:)` (TLSTrust's addition).
        var crls: [CertificateRevocationList] = []
        /// SCTs given with `SecTrustSetSignedCertificateTimestamps`, as one TLS-encoded
        /// SignedCertificateTimestampList (nil: none).
        var signedCertificateTimestampList: [UInt8]?
        /// The CT policy set with `setCertificateTransparencyPolicy(_:)` (TLSTrust's addition);
        /// nil: the process-wide `SecTrust.defaultCertificateTransparencyPolicy`.
        var certificateTransparency: CertificateTransparencyPolicy?
        /// The prepared anchor set, kept while the anchors and system store stay the same, so that
        /// its cached stores are reused.
        var prepared: (store: SystemTrustStore, anchors: TrustAnchors)?
        var outcome: Outcome?

        mutating func invalidate() { outcome = nil }

        /// Whether the evaluation may use the network: as set, else Apple's default — allowed when
        /// a policy asks for it (the SSL policy, a revocation policy without
        /// `kSecRevocationNetworkAccessDisabled`), not allowed otherwise (the basic X.509 policy).
        var allowsNetworkFetch: Bool {
            networkFetchAllowed ?? policies.contains(where: \.allowsNetworkFetchByDefault)
        }

        /// The engine's revocation policy for this trust.
        ///
        /// Each revocation policy maps through TLSTrust's one mapping of Apple's flags; several
        /// combine to the strictest (hard-fail if any requires a positive response, the union of
        /// their methods, no network if any disables it). Fetching also needs the trust's own
        /// permission (`SecTrustSetNetworkFetchAllowed`). Without a revocation policy, answers the app
        /// gave (`SecTrustSetOCSPResponse`, `setCertificateRevocationLists(_:)`) are still consulted,
        /// soft-fail and offline, so that an answer saying "revoked" is never ignored; with neither,
        /// revocation is off.
        var revocationPolicy: RevocationPolicy {
            let requested = policies.compactMap(\.revocationPolicy)
            guard var combined = requested.first else {
                var given: RevocationPolicy.Methods = []
                if !ocspResponses.isEmpty { given.insert(.ocsp) }
                if !crls.isEmpty { given.insert(.crl) }
                return given.isEmpty ? .off : RevocationPolicy(mode: .soft, methods: given)
            }
            for policy in requested.dropFirst() {
                if policy.mode == .hard { combined.mode = .hard }
                combined.methods.formUnion(policy.methods)
                combined.prefersCRL = combined.prefersCRL || policy.prefersCRL
                combined.allowsNetworkFetch = combined.allowsNetworkFetch && policy.allowsNetworkFetch
            }
            combined.allowsNetworkFetch = combined.allowsNetworkFetch && allowsNetworkFetch
            return combined
        }
    }

    let state: Locked<State>

    init(certificates: [SecCertificate], policies: [SecPolicy]) {
        state = Locked(State(certificates: certificates, policies: policies))
    }

    public static func == (lhs: SecTrust, rhs: SecTrust) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String {
        state.withLock { "<SecTrust \($0.certificates.count) certificates, \($0.policies.count) policies>" }
    }

    var leaf: SecCertificate? { state.withLock { $0.certificates.first } }

    /// The outcome, evaluating first if the trust has none, or if the one it has was for "now"
    /// and now has moved past what it covers.
    ///
    /// Without a verify date a result is an answer about the moment it was computed: a trust kept
    /// for a long time must not stay trusted after its leaf expires (Apple's re-evaluates too). So
    /// a trusted result is reused only while the present lies within its chain's validity, and an
    /// untrusted one is never reused (a certificate not yet valid becomes valid). Re-evaluating a
    /// trusted chain is cheap: the engine's verified-chain cache answers it. A result that consulted
    /// revocation (whose answers the verified-chain cache never replays, and which may have fetched)
    /// is reused for at most `Outcome.revocationReuse`, trusted or not.
    func evaluated() -> Outcome {
        state.withLock { state in
            if let outcome = state.outcome, state.verifyDate != nil || outcome.stillHolds(at: Date()) { return outcome }
            let outcome = Self.evaluate(&state)
            state.outcome = outcome
            return outcome
        }
    }

    private static func evaluate(_ state: inout State) -> Outcome {
        let date = state.verifyDate ?? Date()
        let store = SecBackend.systemStore
        let anchors: TrustAnchors
        if let prepared = state.prepared, prepared.store == store {
            anchors = prepared.anchors
        } else {
            if let custom = state.anchors {
                anchors = TrustAnchors(custom.map(\.certificate), includingSystemStore: !state.anchorsOnly, systemStore: store)
            } else {
                anchors = TrustAnchors([], includingSystemStore: !state.anchorsOnly, systemStore: store)
            }
            state.prepared = (store, anchors)
        }
        // Several SSL policies for different host names: on Apple platforms the trust passes only
        // when every policy passes (a certificate that names all of them). The engine answers one
        // host per evaluation, so each host is a request of its own, and the first that fails
        // is the answer, naming its policy.
        var hosts: [String] = []
        for policy in state.policies {
            if case .ssl(_, let host?) = policy.kind, !hosts.contains(host) { hosts.append(host) }
        }
        if hosts.count < 2 { return evaluate(&state, anchors: anchors, date: date, host: nil) }
        var first: Outcome?
        for host in hosts {
            let outcome = evaluate(&state, anchors: anchors, date: date, host: host)
            guard outcome.evaluation.isTrusted else { return outcome }
            first = first ?? outcome
        }
        return first!
    }

    /// One evaluation; with `host`, only the SSL policies for that host (and those for none) take
    /// part, and a failure names that host's policy.
    private static func evaluate(_ state: inout State, anchors: TrustAnchors, date: Date, host: String?) -> Outcome {
        // Ported code expects Apple's answers: Apple's trust rules, not the web-PKI profile.
        let chosen = state.policies.filter { policy in
            guard let host, case .ssl(_, let name?) = policy.kind else { return true }
            return name == host
        }
        let policies = chosen.compactMap(\.trustPolicy) + [.profile(.apple)]
        var trust = Trust(certificates: state.certificates.map(\.certificate), policies: policies, anchors: anchors)
        trust.verificationDate = date
        trust.revocation = state.revocationPolicy
        // Apple fetches the issuers a server left out whenever the trust may use the network
        // (SecTrustSetNetworkFetchAllowed, or its default with the SSL policy): with revocation
        // off, the permission then covers only those issuers (AIA caIssuers).
        if !trust.revocation.isEnabled && state.allowsNetworkFetch { trust.revocation.allowsNetworkFetch = true }
        trust.ocspResponses = state.ocspResponses
        trust.crls = state.crls
        // Apple's trustd requires CT only under the SSL server policy (its CTRequired check).
        if chosen.contains(where: { if case .ssl(server: true, _) = $0.kind { true } else { false } }) {
            trust.certificateTransparency = state.certificateTransparency ?? SecTrust.effectiveDefaultCertificateTransparencyPolicy
            trust.signedCertificateTimestampList = state.signedCertificateTimestampList
        }
        // A nil fetcher is the core's built-in HTTPRevocationFetcher, used only when the policy and
        // SecTrustSetNetworkFetchAllowed both allow the network.
        let evaluation = trust.evaluate(using: SecBackend.current)
        let consultedRevocation = trust.effectiveRevocationPolicy.isEnabled

        // Give back the caller's own certificate objects (and original bytes) where the chain has them.
        var known: [Certificate: SecCertificate] = [:]
        for certificate in (state.anchors ?? []) + state.certificates.reversed() { known[certificate.certificate] = certificate }
        var chain = evaluation.chain.map { known[$0] ?? SecCertificate($0) }
        if chain.isEmpty, let leaf = state.certificates.first { chain = [leaf] }

        let summary = chain.first.flatMap { SecCertificateCopySubjectSummary($0) as String? } ?? "certificate"
        if evaluation.isTrusted {
            let result: SecTrustResultType = evaluation.result == .proceed ? .proceed : .unspecified
            return Outcome(evaluation: evaluation, status: errSecSuccess, result: result, chain: chain, date: date, message: "",
                           consultedRevocation: consultedRevocation)
        }
        let failure = evaluation.primaryFailure
        var status = failure.map { Self.status(for: $0.code) } ?? errSecNotTrusted
        // trustd: a publicly anchored chain without CT fails its SystemTrustedCTRequired check
        // (errSecVerifyActionFailed); one held to CT by an explicit requirement, CTRequired
        // (errSecNotTrusted). SecPolicyChecks.list, SecPolicyServer.c.
        if failure?.code == .certificateTransparencyRequired, evaluation.certificateTransparency?.endsAtSystemAnchor == true {
            status = errSecVerifyActionFailed
        }
        let result: SecTrustResultType = switch evaluation.result {
        case .fatalTrustFailure: .fatalTrustFailure
        default: .recoverableTrustFailure
        }
        let subject = failure?.certificateIndex.flatMap { $0 < chain.count ? chain[$0] : nil }
            .flatMap { SecCertificateCopySubjectSummary($0) as String? } ?? summary
        return Outcome(evaluation: evaluation, status: status, result: result, chain: chain, date: date,
                       message: "“\(subject)” \(Self.reason(for: status))" + (host.map { " (the SSL policy for “\($0)”)" } ?? ""),
                       consultedRevocation: consultedRevocation)
    }

    /// Apple's status for a TLSTrust failure code (the codes trustd reports for the same check).
    static func status(for code: TrustFailureCode) -> OSStatus {
        switch code {
        case .expired, .notYetValid: errSecCertificateExpired        // Apple reports both as expired
        // SecPolicyChecks.list: ValidityPeriodMaximums → errSecCertificateValidityPeriodTooLong.
        case .validityPeriodTooLong: errSecCertificateValidityPeriodTooLong
        case .hostnameMismatch, .ipAddressMismatch: errSecHostNameMismatch
        case .emailAddressMismatch: errSecSMIMEEmailAddressesNotFound
        // Apple's policy checks fail a chain whose CAs' policy constraints are not met as not trusted.
        case .certificatePolicyViolated: errSecNotTrusted
        case .unknownIssuer, .untrustedRoot, .badSignature, .weakAlgorithm: errSecNotTrusted
        case .notCertificateAuthority: errSecNoBasicConstraintsCA
        case .pathLengthExceeded: errSecPathLengthConstraintExceeded
        case .nameConstraintsViolated: errSecInvalidName
        case .purposeNotAllowed: errSecInvalidExtendedKeyUsage
        case .invalidKeyUsage: errSecInvalidKeyUsageForPolicy
        case .unhandledCriticalExtension: errSecUnknownCriticalExtensionFlag
        case .chainTooLong, .budgetExhausted: errSecCreateChainFailed
        case .malformedCertificate: errSecDecode
        case .invalidPolicy: errSecParam
        // Apple's SecPolicyChecks.list: Revocation → errSecCertificateRevoked (fatal),
        // RevocationResponseRequired → errSecIncompleteCertRevocationCheck (recoverable).
        case .revoked: errSecCertificateRevoked
        case .revocationStatusUnknown: errSecIncompleteCertRevocationCheck
        // trustd's CTRequired: errSecNotTrusted, recoverable (a public chain: see `evaluate(_:anchors:date:host:)`).
        case .certificateTransparencyRequired: errSecNotTrusted
        case .unsupported: errSecUnimplemented
        default: errSecInternalComponent
        }
    }

    private static func reason(for status: OSStatus) -> String {
        switch status {
        case errSecCertificateExpired: "certificate has expired or is not yet valid"
        case errSecHostNameMismatch: "certificate name does not match input"
        case errSecNotTrusted: "certificate is not trusted"
        case errSecCertificateRevoked: "certificate is revoked"
        case errSecIncompleteCertRevocationCheck: "certificate revocation status could not be determined"
        default: "certificate failed: " + (ErrorMessages.text[status] ?? "OSStatus \(status)")
        }
    }
}

public func SecTrustGetTypeID() -> CFTypeID { TypeIdentifiers.trust }

/// Reads "one X or an array of X" as Apple's `CFTypeRef` parameters take it.
func objects<T: AnyObject>(_ value: CFTypeRef?, of type: T.Type) -> [T]? {
    guard let value else { return [] }
    if let one = value as? T { return [one] }
    if let array = value as? NSArray {
        var result: [T] = []
        for element in array {
            guard let item = element as? T else { return nil }
            result.append(item)
        }
        return result
    }
    if let array = value as? [T] { return array }
    return nil
}

/// Creates a trust for one certificate or an array (leaf first) and one policy, an array or nil
/// (nil: the basic X.509 policy).
@discardableResult
public func SecTrustCreateWithCertificates(
    _ certificates: CFTypeRef, _ policies: CFTypeRef?, _ trust: UnsafeMutablePointer<SecTrust?>
) -> OSStatus {
    guard let certificates = objects(certificates, of: SecCertificate.self), !certificates.isEmpty,
          let policies = objects(policies, of: SecPolicy.self) else { return errSecParam }
    trust.pointee = SecTrust(certificates: certificates, policies: policies)
    return errSecSuccess
}

/// Replaces the policies (one policy or an array).
@discardableResult
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus {
    guard let policies = objects(policies, of: SecPolicy.self) else { return errSecParam }
    trust.state.withLock { $0.policies = policies; $0.invalidate() }
    return errSecSuccess
}

/// The policies, as an array.
@discardableResult
public func SecTrustCopyPolicies(_ trust: SecTrust, _ policies: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    policies.pointee = trust.state.withLock { $0.policies } as NSArray
    return errSecSuccess
}

/// Trusts only these anchors (leaves, intermediates or roots: a path ends at any anchor); nil
/// restores the default (system) anchors. Like Apple's, this resets "anchors only" to
/// `anchorCertificates != nil`: call `SecTrustSetAnchorCertificatesOnly(trust, false)` afterwards
/// to add the system store back.
@discardableResult
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    var anchors: [SecCertificate]?
    if let anchorCertificates {
        guard let list = objects(anchorCertificates, of: SecCertificate.self) else { return errSecParam }
        anchors = list
    }
    trust.state.withLock {
        $0.anchors = anchors
        $0.anchorsOnly = anchors != nil
        $0.prepared = nil
        $0.invalidate()
    }
    return errSecSuccess
}

/// Whether only the custom anchors are trusted (true) or the system store too (false).
@discardableResult
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.state.withLock {
        $0.anchorsOnly = anchorCertificatesOnly
        $0.prepared = nil
        $0.invalidate()
    }
    return errSecSuccess
}

/// The custom anchors, or nil when the trust uses the default ones.
@discardableResult
public func SecTrustCopyCustomAnchorCertificates(_ trust: SecTrust, _ anchors: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    anchors.pointee = trust.state.withLock { $0.anchors }.map { $0 as NSArray }
    return errSecSuccess
}

/// Evaluates at `verifyDate` instead of now.
@discardableResult
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
    trust.state.withLock { $0.verifyDate = verifyDate as Date; $0.invalidate() }
    return errSecSuccess
}

/// The date the trust is evaluated at: the verify date, else now.
public func SecTrustGetVerifyTime(_ trust: SecTrust) -> CFAbsoluteTime {
    (trust.state.withLock { $0.verifyDate } ?? Date()).timeIntervalSinceReferenceDate
}

/// Evaluates (once; again after a setting changed, or when a result computed for "now" no longer
/// covers the present: see `SecTrust.evaluated()`) and returns whether the chain is trusted.
/// When it is not, `error` receives a `CFError` in `NSOSStatusErrorDomain` whose code is Apple's
/// status for the main failure (`errSecCertificateExpired`, `errSecHostNameMismatch`,
/// `errSecNotTrusted`, …), with TLSTrust's failures in `NSDebugDescription`.
@discardableResult
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    let outcome = trust.evaluated()
    if outcome.status == errSecSuccess {
        error?.pointee = nil
        return true
    }
    error?.pointee = makeStatusError(outcome.status, outcome.message, detail: outcome.evaluation.description)
    return false
}

/// Evaluates and reports the result type; the status is `errSecSuccess` whenever an evaluation
/// took place, trusted or not.
@available(*, deprecated, message: "Use SecTrustEvaluateWithError")
@discardableResult
public func SecTrustEvaluate(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    result.pointee = trust.evaluated().result
    return errSecSuccess
}

/// The result of the last evaluation; `.invalid` when the trust has not been evaluated.
@discardableResult
public func SecTrustGetTrustResult(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    result.pointee = trust.state.withLock { $0.outcome?.result } ?? .invalid
    return errSecSuccess
}

/// The number of certificates in the chain as built (evaluating first if needed).
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex {
    trust.evaluated().chain.count
}

/// The certificate at `ix` in the chain as built; index 0 is the leaf, returned without evaluating.
@available(*, deprecated, message: "Use SecTrustCopyCertificateChain")
public func SecTrustGetCertificateAtIndex(_ trust: SecTrust, _ ix: CFIndex) -> SecCertificate? {
    if ix == 0 { return trust.leaf }
    let chain = trust.evaluated().chain
    return ix > 0 && ix < chain.count ? chain[ix] : nil
}

/// The chain as built, leaf first, ending at the anchor when one was reached (evaluating first if
/// needed). When an intermediate is missing, it is shorter than the presented list.
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    trust.evaluated().chain as NSArray
}

/// The leaf's public key; nil when its type is not RSA or EC.
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? {
    trust.leaf.flatMap(SecCertificateCopyKey)
}

/// The leaf's public key.
@available(*, deprecated, message: "Use SecTrustCopyKey")
public func SecTrustCopyPublicKey(_ trust: SecTrust) -> SecKey? { SecTrustCopyKey(trust) }

// `nonisolated(unsafe)`: NSString is not marked Sendable on Linux, but these are immutable literals.
// Keys of the `SecTrustCopyResult` dictionary, with Apple's raw values.
nonisolated(unsafe) public let kSecTrustResultValue: CFString = "TrustResultValue" as CFString
nonisolated(unsafe) public let kSecTrustEvaluationDate: CFString = "TrustEvaluationDate" as CFString
nonisolated(unsafe) public let kSecTrustExtendedValidation: CFString = "TrustExtendedValidation" as CFString
nonisolated(unsafe) public let kSecTrustRevocationChecked: CFString = "TrustRevocationChecked" as CFString
nonisolated(unsafe) public let kSecTrustOrganizationName: CFString = "Organization" as CFString
nonisolated(unsafe) public let kSecTrustRevocationValidUntilDate: CFString = "TrustExpirationDate" as CFString
nonisolated(unsafe) public let kSecTrustCertificateTransparency: CFString = "TrustCertificateTransparency" as CFString

/// The CA/Browser Forum's Extended Validation policy OID, which every EV certificate asserts.
let extendedValidationPolicy = "2.23.140.1.1"

/// The last result as a dictionary; nil when the trust has not been evaluated. The dictionary
/// TrustKit and apps log:
///
/// - `kSecTrustResultValue`, `kSecTrustEvaluationDate`.
/// - `kSecTrustRevocationChecked`: true when revocation was checked and every certificate checked
///   had an answer saying it is good.
/// - `kSecTrustRevocationValidUntilDate`: then, the earliest instant one of those answers is due
///   again (its nextUpdate; for an OCSP response without one, a day after its thisUpdate, as the
///   engine judges it); absent otherwise.
/// - `kSecTrustExtendedValidation`: true when the chain is trusted, ends at an anchor of the
///   system store (not one the app supplied), and is valid for the CA/Browser Forum EV policy
///   (2.23.140.1.1) that the leaf asserts, through RFC 5280 policy processing; false otherwise.
///   Apple also requires the root to be enabled for EV in its own root program, a mark Linux's
///   trust store does not carry (docs/porting.md).
/// - `kSecTrustOrganizationName`: with Extended Validation, the leaf's subject organization (O),
///   as Apple gives it; absent otherwise.
/// - `kSecTrustCertificateTransparency`: true when the chain is trusted and its SCTs meet the
///   trust's Certificate Transparency policy (whether or not the policy was enforced on this
///   chain); absent otherwise, as trustd sets it only when true. Without a CT policy (see
///   `SecTrust.defaultCertificateTransparencyPolicy`) it is always absent.
public func SecTrustCopyResult(_ trust: SecTrust) -> CFDictionary? {
    guard let outcome = trust.state.withLock({ $0.outcome }) else { return nil }
    let evaluation = outcome.evaluation
    let revocation = evaluation.revocation
    let checked = !revocation.isEmpty && revocation.allSatisfy { $0.status == .good }
    let extendedValidation = evaluation.isTrusted && evaluation.result == .unspecified
        && evaluation.certificatePolicies?.authorityConstrained.contains(extendedValidationPolicy) == true
    var result: [String: Any] = [
        kSecTrustResultValue as String: NSNumber(value: outcome.result.rawValue),
        kSecTrustEvaluationDate as String: outcome.date,
        kSecTrustRevocationChecked as String: checked,
        kSecTrustExtendedValidation as String: extendedValidation,
    ]
    if checked, let until = revocation.compactMap(\.validUntil).min() {
        result[kSecTrustRevocationValidUntilDate as String] = until
    }
    if evaluation.isTrusted, evaluation.certificateTransparency?.isCompliant == true {
        result[kSecTrustCertificateTransparency as String] = true
    }
    if extendedValidation, let organization = evaluation.chain.first?.subject.attributes.first(where: { $0.oid == "2.5.4.10" })?.value {
        result[kSecTrustOrganizationName as String] = organization
    }
    return result as CFDictionary
}

// Keys of the `SecTrustCopyProperties` dictionaries, with Apple's raw values.
nonisolated(unsafe) public let kSecPropertyTypeTitle: CFString = "title" as CFString
nonisolated(unsafe) public let kSecPropertyTypeError: CFString = "error" as CFString

/// One dictionary per certificate of the chain as built, leaf first: `kSecPropertyTypeTitle`, the
/// certificate's subject summary, and `kSecPropertyTypeError`, the reason it failed, on each
/// certificate an evaluation failure concerns (a failure that concerns no single certificate is
/// put on the leaf). Evaluates first if the trust has no result — what pinning and logging code
/// print after a failure.
@available(*, deprecated, message: "Use SecTrustEvaluateWithError's error")
public func SecTrustCopyProperties(_ trust: SecTrust) -> CFArray? {
    let outcome = trust.evaluated()
    let chain = outcome.chain.isEmpty ? trust.state.withLock { $0.certificates } : outcome.chain
    var properties: [[String: Any]] = chain.map { certificate in
        [kSecPropertyTypeTitle as String: (SecCertificateCopySubjectSummary(certificate) ?? "" as CFString) as String]
    }
    for failure in outcome.evaluation.failures {
        let index = failure.certificateIndex.map { min($0, properties.count - 1) } ?? 0
        guard properties.indices.contains(index) else { continue }
        let text = "\(failure.code.identifier): \(failure.detail)"
        let earlier = properties[index][kSecPropertyTypeError as String] as? String
        properties[index][kSecPropertyTypeError as String] = earlier.map { $0 + "; " + text } ?? text
    }
    return properties.map { $0 as NSDictionary } as NSArray
}

/// The callback of `SecTrustEvaluateAsyncWithError`: the trust, whether it is trusted, and the error
/// `SecTrustEvaluateWithError` gives when it is not.
public typealias SecTrustWithErrorCallback = @Sendable (SecTrust, Bool, CFError?) -> Void

/// Evaluates off the caller's thread and calls `result` on `queue` with the verdict and, when not
/// trusted, the error `SecTrustEvaluateWithError` would give — the asynchronous form URLSession
/// delegates use.
///
/// The evaluation, which may fetch revocation answers over the network, runs on a queue of its
/// own, never on `queue` (as Apple asks, the caller is usually on `queue`). Not on
/// `DispatchQueue.global()`: its workers, about one per core, are shared by all of the process's
/// Dispatch work, and an evaluation blocked on a fetch there holds one up; a queue of its own is
/// served by a thread that starts at once (see the core's `DispatchTaskExecutor`). It uses the `SecTrustEnvironment` current at the call, so that
/// a task's backend and system store follow it.
///
/// - Returns: `errSecSuccess` (the evaluation is scheduled).
@discardableResult
public func SecTrustEvaluateAsyncWithError(
    _ trust: SecTrust, _ queue: DispatchQueue, _ result: @escaping SecTrustWithErrorCallback
) -> OSStatus {
    let backend = SecTrustEnvironment.backend
    let store = SecTrustEnvironment.systemStore
    DispatchQueue(label: "tlstrust.sectrust-evaluate", qos: .userInitiated).async {
        var error: CFError?
        let trusted = SecTrustEnvironment.$backend.withValue(backend) {
            SecTrustEnvironment.$systemStore.withValue(store) { SecTrustEvaluateWithError(trust, &error) }
        }
        let verdict = error
        queue.async { result(trust, trusted, verdict) }
    }
    return errSecSuccess
}
