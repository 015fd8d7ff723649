import Foundation
import Synchronization

/// Trusted engine evaluations kept for re-use, so that re-evaluating a chain already verified
/// skips the path building and the signature checks.
///
/// Rules, each proved by `Tests/TLSTrustTests/Engine/VerifiedChainCacheTests.swift`:
/// - **Same question only.** An entry answers only an evaluation of the same presented chain
///   (byte for byte, in order), on the same backend, under the same policies (host, purpose,
///   common-name fallback, depth limit, profile, certificate-policy inputs, e-mail addresses,
///   required key usages) — and against the same anchors: each anchor set
///   (``TrustAnchors`` value and its copies) has its own cache, so changing the anchors starts
///   from an empty one, and a change of policies is a different key.
/// - **Within the validity of the whole path.** An entry answers only for an instant between the
///   latest `notBefore` and the earliest `notAfter` of the path it trusted (anchor included),
///   inclusive, as the engine judges validity; outside that window the chain is evaluated afresh.
/// - **Only what cannot depend on the date.** Only trusted results are kept, and only when the
///   trusted path was the first complete path the engine reached (see
///   `ValidationEngine.evaluateReportingReuse()`): a refusal, or a trust reached after another path
///   failed validation, is never replayed.
/// - **Revocation is asked again, every time.** An entry holds the verified path, never what
///   revocation said about it. An evaluation with revocation on is answered from a cached path
///   only after its revocation is checked afresh, with this request's answers, at this instant
///   (`RevocationChecker`); a revoked or unanswered (hard-fail) certificate on it sends the
///   evaluation to the full search, which may find another path, exactly as without the cache.
/// - **Bounded.** At most ``capacity`` entries per anchor set; the least recently used goes first.
/// - **Concurrent.** Lookups and inserts take a lock (`Locked`) for a dictionary access; evaluations run
///   outside it, so parallel evaluations do not serialise.
/// - **Can be switched off**, process-wide with ``isEnabled`` or per evaluation with
///   ``Trust/usesVerifiedChainCache``. The library's own verifier (`Trust.evaluateNatively(using:)`) is never cached.
public enum VerifiedChainCache {
    /// Whether trusted engine evaluations are kept and reused (default true). Process-wide.
    public static var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// The most entries kept per anchor set (default 1,024). Process-wide; applies to new inserts.
    public static var capacity: Int {
        get { capacityValue.load(ordering: .relaxed) }
        set { capacityValue.store(max(0, newValue), ordering: .relaxed) }
    }

    private static let enabled = Atomic<Bool>(true)
    private static let capacityValue = Atomic<Int>(1024)

    /// What an evaluation is keyed by, besides its anchor set.
    struct Key: Hashable, Sendable {
        let chain: [Certificate]
        let backend: ProviderIdentity
        let host: HostIdentity?
        let allowsCommonNameFallback: Bool
        let purpose: KeyPurpose
        let maximumIntermediates: Int?
        let profile: ValidationProfile
        let certificatePolicyInputs: CertificatePolicyInputs
        let emailAddresses: [String]
        let requiredKeyUsage: KeyUsage
        /// Whether missing issuers may be fetched: a path built with a fetched issuer is never
        /// the answer to an evaluation that may not fetch.
        let fetchesIssuers: Bool

        init(_ request: TrustEvaluationRequest, backend: ProviderIdentity) {
            chain = [request.leaf] + request.intermediates
            self.backend = backend
            host = request.host
            allowsCommonNameFallback = request.allowsCommonNameFallback
            purpose = request.purpose
            maximumIntermediates = request.maximumIntermediates
            profile = request.profile
            certificatePolicyInputs = request.certificatePolicyInputs
            emailAddresses = request.emailAddresses
            requiredKeyUsage = request.requiredKeyUsage
            fetchesIssuers = request.revocation.fetcher != nil
        }
    }

    /// A trusted evaluation and the instants it holds for.
    struct Entry: Sendable {
        let evaluation: TrustEvaluation
        let validFrom: Date
        let validUntil: Date

        init(_ evaluation: TrustEvaluation) {
            self.evaluation = evaluation
            validFrom = evaluation.chain.map(\.notValidBefore).max() ?? .distantFuture
            validUntil = evaluation.chain.map(\.notValidAfter).min() ?? .distantPast
        }

        func holds(at date: Date) -> Bool { date >= validFrom && date <= validUntil }
    }

    /// One anchor set's entries.
    ///
    /// Split by the leaf's DER hash into stripes, each with its own lock and an equal share of
    /// ``capacity``, because one anchor set serves every connection of a process (its docs say to
    /// keep one): with one lock, threads re-evaluating different chains queued on it, and two
    /// threads evaluated fewer chains per second than one (docs/benchmarks.md, scaling). The number of stripes is
    /// fixed when the anchor set's cache is made: one per 64 entries of the capacity then, at
    /// least one, at most 16, so that a capacity under 128 keeps one table and its exact
    /// least-recently-used order. A capacity changed later is shared over the same stripes.
    final class Store: @unchecked Sendable {  // `stripes` never changes; each table is reached only under its lock
        private typealias Stripe = Locked<LRUTable<Key, Entry>>
        private static let maximumStripes = 16
        /// The stripes, reached through a pointer rather than an array, so that a lookup writes
        /// no reference count that all threads share.
        private let stripes: UnsafeMutablePointer<Stripe>
        private let stripeCount: Int
        /// The capacity the stripes' shares were last set from.
        private let sharedCapacity: Atomic<Int>

        init() {
            let capacity = VerifiedChainCache.capacity
            stripeCount = min(Self.maximumStripes, max(1, capacity / 64))
            sharedCapacity = Atomic(capacity)
            stripes = .allocate(capacity: stripeCount)
            for index in 0..<stripeCount {
                (stripes + index).initialize(to: Stripe(LRUTable(capacity: Self.share(of: capacity, stripe: index, of: stripeCount)),
                                                        isolated: stripeCount > 1))
            }
        }

        deinit {
            stripes.deinitialize(count: stripeCount)
            stripes.deallocate()
        }

        /// Stripe `stripe`'s part of `capacity` over `stripes` stripes (the parts add up to it).
        private static func share(of capacity: Int, stripe: Int, of stripes: Int) -> Int {
            capacity / stripes + (stripe < capacity % stripes ? 1 : 0)
        }

        private func stripe(for key: Key) -> Int {
            guard stripeCount > 1, let leaf = key.chain.first else { return 0 }
            return Int(UInt(bitPattern: leaf.storage.digest) % UInt(stripeCount))
        }

        func lookup(_ key: Key, at date: Date) -> TrustEvaluation? {
            stripes[stripe(for: key)].withLock { table in
                guard let entry = table[key] else { return nil }
                return entry.holds(at: date) ? entry.evaluation : nil
            }
        }

        func insert(_ evaluation: TrustEvaluation, for key: Key) {
            let entry = Entry(evaluation)
            let capacity = VerifiedChainCache.capacity
            if sharedCapacity.exchange(capacity, ordering: .relaxed) != capacity {
                // The capacity changed: every stripe takes its new share now, so that the anchor
                // set holds at most `capacity` entries after this insert.
                for index in 0..<stripeCount {
                    stripes[index].withLock { $0.capacity = Self.share(of: capacity, stripe: index, of: stripeCount); $0.trim() }
                }
            }
            let index = stripe(for: key)
            stripes[index].withLock { table in
                table.capacity = Self.share(of: capacity, stripe: index, of: stripeCount)
                table[key] = entry
            }
        }

        var count: Int { (0..<stripeCount).reduce(0) { sum, index in sum + stripes[index].withLock { $0.count } } }

        func removeAll() {
            for index in 0..<stripeCount { stripes[index].withLock { $0.removeAll() } }
        }
    }

    /// The engine's evaluation of `request`, from the anchor set's cache when it holds the answer.
    /// Called by `ValidationDoor.evaluate(_:provider:)` only: the cache is part of the engine.
    static func evaluate<Backend: TrustBackend>(_ request: TrustEvaluationRequest, backend: Backend) -> TrustEvaluation {
        let engine = ValidationEngine(request: request, backend: backend)
        guard isEnabled, request.usesVerifiedChainCache else { return engine.evaluate() }
        let store = request.anchors.freshCache.verifiedChains
        let generation = request.anchors.systemStoreGeneration
        let key = Key(request, backend: backend.providerIdentity)
        if let cached = store.lookup(key, at: request.verificationDate) {
            guard request.revocation.policy.isEnabled else { return cached }
            // The path's signatures and rules hold; its revocation is asked now. Only a path that
            // passes is answered from here: the full search would reach this path first and accept it
            // with the same answers, and would go on to another one if it did not pass.
            if let rechecked = engine.recheckingRevocation(of: cached) { return rechecked }
            return engine.evaluate()
        }
        let (evaluation, reusable) = engine.evaluateReportingReuse()
        // Not kept if the system store changed meanwhile: the result may rest on a removed CA. What
        // revocation said is not kept: it is asked again on every use.
        if reusable && request.anchors.systemStoreGeneration == generation {
            var path = evaluation
            path.revocation = []
            store.insert(path, for: key)
        }
        return evaluation
    }
}

extension ValidationEngine {
    /// `cached`, a trusted evaluation of the same question, with the revocation of its path checked
    /// for this request now; nil when a certificate on it is revoked, has no usable answer under
    /// hard-fail, or the check runs out of budget (the caller then searches in full).
    func recheckingRevocation(of cached: TrustEvaluation) -> TrustEvaluation? {
        var meter = BudgetMeter(budget)
        let checker = RevocationChecker(inputs: request.revocation, backend: backend, date: request.verificationDate, request: request)
        guard let (failures, records) = try? checker.check(cached.chain, meter: &meter), failures.isEmpty else { return nil }
        var evaluation = cached
        evaluation.revocation = records
        return evaluation
    }
}

extension TrustAnchors {
    /// How many verified chains this anchor set (and its copies) holds now.
    public var verifiedChainCount: Int { cache.verifiedChains.count }

    /// Forgets every verified chain of this anchor set (and its copies): the next evaluation of
    /// each chain checks its signatures again.
    public func removeVerifiedChains() { cache.verifiedChains.removeAll() }
}
