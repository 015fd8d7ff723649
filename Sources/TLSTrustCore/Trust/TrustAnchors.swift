/// The certificates a trust evaluation may end at.
///
/// Mirrors `SecTrustSetAnchorCertificates` and `SecTrustSetAnchorCertificatesOnly`: setting anchors
/// means "only these" unless the system store is explicitly added back. An anchor need not be
/// self-signed; a path that reaches any anchor ends there.
///
/// A `TrustAnchors` value caches each backend's prepared form of its certificates (an
/// `X509_STORE`, a GnuTLS trust list, …) the first time that backend uses it. Keep one value
/// for the life of your app — in your trust evaluator, say — and every handshake after the
/// first skips the preparation. Copies share the cache; anchor sets that are just the system store
/// (the default of `Trust`) share one cache per store location for the whole process.
///
/// ```swift
/// let anchors = TrustAnchors.only([appCA])  // the app's own CA, nothing else
/// ```
public struct TrustAnchors: Sendable, CustomStringConvertible {
    /// The anchors the app supplied.
    public var certificates: [Certificate] { contents.certificates }
    /// Whether the system store is trusted too.
    public var includesSystemStore: Bool { contents.includesSystemStore }
    /// Which system store, resolved when this value was made.
    public var systemStore: SystemTrustStore { contents.systemStore }
    var cache: PreparedAnchorCache { contents.cache }

    /// Everything in one object: an anchor set is copied into every request and evaluation, and
    /// one set serves every connection of a process, so each reference it holds is a reference
    /// count that all threads write on every evaluation. One object, not four (the
    /// certificates, the store's two path lists and the cache).
    private final class Contents: Sendable {
        let certificates: [Certificate]
        let includesSystemStore: Bool
        let systemStore: SystemTrustStore
        let cache: PreparedAnchorCache

        init(certificates: [Certificate], includesSystemStore: Bool, systemStore: SystemTrustStore, cache: PreparedAnchorCache) {
            self.certificates = certificates
            self.includesSystemStore = includesSystemStore
            self.systemStore = systemStore
            self.cache = cache
        }
    }

    private let contents: Contents

    /// - Parameters:
    ///   - certificates: anchors supplied by the app.
    ///   - includingSystemStore: also trust the system store (default false: only `certificates`).
    ///   - systemStore: the store to add; defaults to the one the environment designates.
    public init(_ certificates: [Certificate], includingSystemStore: Bool = false, systemStore: SystemTrustStore = .current) {
        // The system store alone is what `Trust` uses by default, so a caller who never keeps a
        // `TrustAnchors` value would otherwise rebuild a ~150-CA store on every handshake. Such
        // anchor sets share one process-wide cache per store location instead.
        let cache = certificates.isEmpty && includingSystemStore
            ? PreparedAnchorCache.shared(for: systemStore) : PreparedAnchorCache()
        contents = Contents(certificates: certificates, includesSystemStore: includingSystemStore, systemStore: systemStore, cache: cache)
    }

    /// Only these anchors.
    public static func only(_ certificates: [Certificate]) -> TrustAnchors { TrustAnchors(certificates) }

    /// The system trust store alone (the default of a `Trust`).
    public static var system: TrustAnchors { TrustAnchors([], includingSystemStore: true) }

    /// All anchor certificates: the app's first, then the system's.
    public var allCertificates: [Certificate] {
        includesSystemStore ? certificates + systemStore.certificates() : certificates
    }

    public var description: String {
        switch (certificates.isEmpty, includesSystemStore) {
        case (true, true): return "system trust store (\(systemStore))"
        case (false, true): return "\(certificates.count) custom anchor(s) + system trust store"
        case (_, false): return "\(certificates.count) custom anchor(s) only"
        }
    }

    /// The system store's generation when it is included, else 0.
    var systemStoreGeneration: Int { includesSystemStore ? systemStore.generation : 0 }

    /// The cache, emptied first when it was built from an older system store (the store's files
    /// changed: ``SystemTrustStore/generation``), so that a removed CA is not trusted from a cache.
    var freshCache: PreparedAnchorCache {
        if includesSystemStore { cache.discardIfBuilt(before: systemStore.generation) }
        return cache
    }

    /// The native verifier's prepared store for these anchors, made on first use and cached (one
    /// per anchor set and provider identity: a store is only ever handed to the verifier that made it).
    @_spi(Comparison)
    public func store<Verifier: NativeTrustVerifier>(for verifier: Verifier) throws -> Verifier.AnchorStore {
        let cache = freshCache
        let identity = verifier.providerIdentity
        if let s = cache.stores.withLock({ $0[identity] }) { return try Self.own(s, verifier) }
        let system = includesSystemStore ? verifier.systemAnchors(from: systemStore) : []
        let made = try verifier.makeAnchorStore(certificates + system)
        let kept = cache.stores.withLock { stores -> any TrustAnchorStore in
            // Another task may have raced us; keep the first so all callers share one store.
            if let existing = stores[identity] { return existing }
            stores[identity] = made
            return made
        }
        return try Self.own(kept, verifier)
    }

    /// The store as the verifier's own type. Stores are keyed by provider identity, so this cannot
    /// fail unless a cache was corrupted; if it does, the evaluation fails instead of guessing.
    private static func own<Verifier: NativeTrustVerifier>(_ store: any TrustAnchorStore, _ verifier: Verifier) throws -> Verifier.AnchorStore {
        guard let own = store as? Verifier.AnchorStore else {
            throw TLSTrustError(.backendFailure, "the anchor store cached for \(verifier.name) was prepared by another backend")
        }
        return own
    }

    /// Prepares these anchors for the engine now — reads the system store if included, indexes
    /// every anchor by subject — rather than on the first evaluation. Idempotent and cheap once done.
    ///
    /// - Returns: how many anchors there are.
    @discardableResult
    public func prepareForEngine() -> Int { index.certificates.count }

    /// The engine's index of all anchors (custom and system), made on first use and cached.
    var index: AnchorIndex {
        let cache = freshCache
        if let i = cache.index.withLock({ $0 }) { return i }
        let made = AnchorIndex(allCertificates)
        return cache.index.withLock { slot in
            if let existing = slot { return existing }
            slot = made
            return made
        }
    }

    /// The custom anchors as a set, for `.proceed` detection and partial chains.
    var customSet: Set<Certificate> {
        if let s = cache.customSet.withLock({ $0 }) { return s }
        let s = Set(certificates)
        cache.customSet.withLock { $0 = s }
        return s
    }
}

/// Per-backend prepared anchor stores, shared by copies of one `TrustAnchors` (and, for the
/// system store alone, by every `TrustAnchors` naming the same store).
final class PreparedAnchorCache: Sendable {
    let stores = Locked<[ProviderIdentity: any TrustAnchorStore]>([:])
    let customSet = Locked<Set<Certificate>?>(nil)
    let index = Locked<AnchorIndex?>(nil)
    /// Trusted engine evaluations against these anchors (``VerifiedChainCache``).
    let verifiedChains = VerifiedChainCache.Store()
    /// The system store generation the contents were built from.
    private let generation = Locked<Int>(0)

    /// Empties the cache if it was built from a system store generation other than `current`.
    func discardIfBuilt(before current: Int) {
        generation.withLock { built in
            guard built != current else { return }
            stores.withLock { $0.removeAll() }
            index.withLock { $0 = nil }
            verifiedChains.removeAll()
            built = current
        }
    }

    private static let systemCaches = Locked<[SystemTrustStore: PreparedAnchorCache]>([:])

    /// The one cache for "the system store at these locations, nothing else".
    static func shared(for store: SystemTrustStore) -> PreparedAnchorCache {
        systemCaches.withLock { caches in
            if let cache = caches[store] { return cache }
            let cache = PreparedAnchorCache()
            caches[store] = cache
            return cache
        }
    }
}
