#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The certificates parsed recently, by DER, so that the chain a server presents on every
/// handshake is parsed once rather than on every handshake.
///
/// `Certificate(derEncoded:)` looks the bytes up here first: a hit returns the storage of the
/// earlier parse — the same fields, and the same library keys already imported for it (see
/// ``Certificate/verificationKey(for:)``) — after comparing the DER byte for byte, so a hit is
/// exactly what a fresh parse would give. Only successful parses are kept; malformed input is
/// parsed (and refused) every time. Bounded: at most ``capacity`` parses are kept, and the least
/// recently used goes first.
///
/// Concurrent: the table is split by the DER's hash into up to 16 stripes, each with its own lock
/// and an equal share of the capacity, so that threads evaluating different chains rarely take
/// the same lock (one process-wide lock keeps parallel cached evaluations from scaling). Least-recently-used is then judged within a stripe; a capacity under 64 keeps one
/// stripe, and with it the exact order of the single table.
///
/// On by default; switching it off makes every `Certificate(derEncoded:)` a full parse (benchmarks
/// of the parser do that).
public enum CertificateParseCache {
    /// Whether `Certificate(derEncoded:)` reuses earlier parses (default true). Process-wide.
    public static var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// How many parsed certificates are kept at most (default 512). Process-wide. Changing it
    /// starts from an empty cache.
    public static var capacity: Int {
        get { layout.withLock { $0 } }
        set {
            layout.withLock { capacity in
                capacity = max(0, newValue)
                let stripes = stripeCount(for: capacity)
                // Stripes past the count get no share, so nothing inserted there is kept (an
                // insert racing with the change may land in one and is dropped).
                for index in 0..<maximumStripes {
                    table(index).withLock { $0.removeAll(); $0.capacity = share(of: capacity, stripe: index, of: stripes) }
                }
                activeStripes.store(stripes, ordering: .relaxed)
            }
        }
    }

    /// Forgets every parsed certificate.
    public static func removeAll() {
        for index in 0..<maximumStripes { table(index).withLock { $0.removeAll() } }
    }

    /// How many certificates are kept now.
    public static var count: Int {
        (0..<maximumStripes).reduce(0) { sum, index in sum + table(index).withLock { $0.count } }
    }

    private static let enabled = Atomic<Bool>(true)
    private static let maximumStripes = 16
    /// The capacity; its lock serialises capacity changes.
    private static let layout = Locked<Int>(512)
    private static let activeStripes = Atomic<Int>(stripeCount(for: 512))
    /// The stripes, in memory of their own for the life of the process (reached through a pointer,
    /// not an array, so that a lookup writes no shared reference count). `nonisolated(unsafe)`: the
    /// pointer never changes, and what it points to is only reached through each stripe's lock.
    nonisolated(unsafe) private static let tables: UnsafeMutablePointer<Locked<LRUTable<DERKey, Certificate.Storage>>> = {
        let tables = UnsafeMutablePointer<Locked<LRUTable<DERKey, Certificate.Storage>>>.allocate(capacity: maximumStripes)
        let stripes = stripeCount(for: 512)
        for index in 0..<maximumStripes {
            (tables + index).initialize(to: Locked(LRUTable(capacity: share(of: 512, stripe: index, of: stripes)), isolated: true))
        }
        return tables
    }()

    /// One stripe per 32 entries of capacity, at least one, at most 16.
    static func stripeCount(for capacity: Int) -> Int { min(maximumStripes, max(1, capacity / 32)) }

    /// Stripe `stripe`'s part of `capacity` split over `stripes` stripes (the parts add up to it).
    static func share(of capacity: Int, stripe: Int, of stripes: Int) -> Int {
        guard stripe < stripes else { return 0 }
        return capacity / stripes + (stripe < capacity % stripes ? 1 : 0)
    }

    private static func table(_ index: Int) -> Locked<LRUTable<DERKey, Certificate.Storage>> { tables[index] }

    /// The stripe holding `key`.
    private static func stripe(for key: DERKey) -> Int {
        Int(UInt(bitPattern: key.digest) % UInt(activeStripes.load(ordering: .relaxed)))
    }

    /// The storage of an earlier parse of exactly these bytes, if any.
    static func lookup(_ key: DERKey) -> Certificate.Storage? {
        guard isEnabled else { return nil }
        return tables[stripe(for: key)].withLock { $0[key] }
    }

    static func insert(_ storage: Certificate.Storage, for key: DERKey) {
        guard isEnabled else { return }
        tables[stripe(for: key)].withLock { $0[key] = storage }
    }
}

/// DER bytes with their hash computed once (SipHash over the raw buffer, not element by element).
struct DERKey: Hashable, @unchecked Sendable {  // @unchecked: an immutable [UInt8] and an Int
    let bytes: [UInt8]
    let digest: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.digest = Self.digest(of: bytes)
    }

    init(_ bytes: [UInt8], digest: Int) {
        self.bytes = bytes
        self.digest = digest
    }

    static func digest(of bytes: [UInt8]) -> Int {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.digest == rhs.digest, lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { a in
            rhs.bytes.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    func hash(into hasher: inout Hasher) { hasher.combine(digest) }
}

/// A dictionary with a size bound that evicts the least recently used entry. Not thread-safe on
/// its own: every user keeps it in a `Locked`.
///
/// Recency is a counter per entry; eviction scans for the smallest, which is O(capacity) but
/// happens only when a new entry is inserted into a full table (a miss, which costs a full parse
/// or a full evaluation anyway).
struct LRUTable<Key: Hashable, Value> {
    var capacity: Int
    private var entries: [Key: (value: Value, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    subscript(key: Key) -> Value? {
        mutating get {
            guard let entry = entries[key] else { return nil }
            clock &+= 1
            entries[key] = (entry.value, clock)
            return entry.value
        }
        set {
            guard let newValue else {
                entries[key] = nil
                return
            }
            guard capacity > 0 else { return }
            clock &+= 1
            entries[key] = (newValue, clock)
            trim()
        }
    }

    /// Evicts least recently used entries until the bound holds.
    mutating func trim() {
        while entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
    }

    mutating func removeAll() { entries.removeAll() }

    /// Removes every entry for which `shouldRemove` is true.
    mutating func removeAll(where shouldRemove: (Key, Value) -> Bool) {
        entries = entries.filter { !shouldRemove($0.key, $0.value.value) }
    }
}

/// Public keys already imported into a backend's library, by backend and SubjectPublicKeyInfo DER,
/// so that a CA key seen under a new certificate (a new leaf from a known intermediate, a
/// re-parsed intermediate) is not decoded by the library again.
///
/// ``Certificate/verificationKey(for:)`` keeps each imported key with its certificate; this table
/// keeps it for the key's bytes, across certificates. Imported keys are immutable and
/// thread-safe by the ``SignatureVerificationKey`` contract, so sharing one is what sharing a
/// certificate already does. Only successful imports are kept. Bounded (least recently used
/// first); on by default.
public enum VerificationKeyCache {
    /// Whether imported keys are reused across certificates with the same key (default true).
    public static var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// Forgets every imported key (certificates keep their own).
    public static func removeAll() { table.withLock { $0.removeAll() } }

    /// Whether a certificate keeps the keys imported for it (``Certificate/verificationKey(for:)``,
    /// default true). Process-wide. Off, every signature check imports its issuer's key again, as
    /// a program that caches nothing would: benchmarks of the cold path (`tlstrust-dev bench`'s
    /// `evaluate-cold`) switch it off with ``isEnabled``, so that no key outlives one evaluation.
    @_spi(Benchmarking) public static var keepsKeysWithCertificates: Bool {
        get { keepsWithCertificates.load(ordering: .relaxed) }
        set { keepsWithCertificates.store(newValue, ordering: .relaxed) }
    }

    /// How many imported keys are kept at most (256). Process-wide.
    public static let capacity = 256

    /// How many imported keys are kept now.
    public static var count: Int { table.withLock { $0.count } }

    struct ID: Hashable, Sendable {
        let backend: ProviderIdentity
        let spki: DERKey
    }

    private static let enabled = Atomic<Bool>(true)
    private static let keepsWithCertificates = Atomic<Bool>(true)
    private static let table = Locked(LRUTable<ID, any SignatureVerificationKey>(capacity: capacity))

    /// The key imported earlier for these bytes, or a new import (kept when it succeeds).
    static func key(for publicKey: PublicKey, backend: some TrustBackend) throws -> any SignatureVerificationKey {
        guard isEnabled else { return try backend.importPublicKey(publicKey) }
        let id = ID(backend: backend.providerIdentity, spki: DERKey(publicKey.subjectPublicKeyInfoDER))
        if let key = table.withLock({ $0[id] }) { return key }
        let key = try backend.importPublicKey(publicKey)
        table.withLock { $0[id] = key }
        return key
    }
}

extension LRUTable: Sendable where Key: Sendable, Value: Sendable {}
