import TLSTrustCore

/// Keys generated once per process and shared by every test that asks for the same type and slot.
///
/// Key generation is the slow part of minting (an RSA key costs tens of milliseconds, and odd
/// RSA sizes as much again), while most attack tests only need *some* key of a given type: the
/// certificate's shape is the point. Tests that need distinct keys ask for distinct slots.
///
/// > Warning: two certificates minted with the same type and slot share a key, and so the same
/// > subjectKeyIdentifier: a path builder may then take one for the other. Give every CA that
/// > must be told apart from another its own slot (or a fresh `TestPrivateKey`).
extension TestPrivateKey {
    private static let cache = Locked<[CacheKey: TestPrivateKey]>([:])

    private struct CacheKey: Hashable {
        let keyType: TestKeyType
        let slot: Int
        let source: String
    }

    /// The process-wide key of `keyType` in `slot` from the key source in effect, generated on first use.
    public static func shared(_ keyType: TestKeyType, slot: Int = 0) throws -> TestPrivateKey {
        let source = try TestKeySources.current
        let key = CacheKey(keyType: keyType, slot: slot, source: source.name)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        // Generated outside the lock, so that tests waiting for other keys are not held up; if
        // two tasks race, the first key stored wins and the other is dropped.
        let made = try TestPrivateKey(keyType, source: source)
        return cache.withLock { keys in
            if let existing = keys[key] { return existing }
            keys[key] = made
            return made
        }
    }

    /// The shared key of a catalogue algorithm in `slot`.
    public static func shared(_ algorithm: TestKeyAlgorithm, slot: Int = 0) throws -> TestPrivateKey {
        try shared(algorithm.keyType, slot: slot)
    }
}
