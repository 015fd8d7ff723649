import TLSTrustCore

/// What generates the kit's keys: one implementation per crypto library.
///
/// `TLSTrustPKIOpenSSL.OpenSSLKeySource` generates every ``TestKeyType`` (RSA of any size, odd
/// ones included); `TLSTrustPKISwiftCrypto.SwiftCryptoKeySource` needs no system library and
/// generates what swift-crypto can (it throws ``TestPKIError`` with ``TestPKIError/unsupported``
/// set for the rest, so that a check needing such a key is reported as skipped, never passed).
public protocol TestKeySource: Sendable {
    /// A short name for reports (`openssl`, `swift-crypto`).
    var name: String { get }
    /// A new random key of exactly `keyType`.
    func generateKey(_ keyType: TestKeyType) throws -> any TestSigningKey
}

/// A key source the kit can find on its own when its module is linked: the kit creates it with
/// `init()` (see ``TestKeySources/current``).
public protocol LinkedTestKeySource: TestKeySource {
    init()
}

/// Which ``TestKeySource`` mints the keys of `TestPrivateKey(_:)`, `TestPKI.issue` and everything
/// built on them.
///
/// In order: the source bound to the current task (``withSource(_:_:)``, what the backend
/// conformance kit does with the source it is given), else the process default
/// (``setDefault(_:)``), else the first linked source of ``linkedSourceNames`` — OpenSSL's when
/// `TLSTrustPKIOpenSSL` is linked, swift-crypto's when only `TLSTrustPKISwiftCrypto` is. So a
/// test target picks its library by the product it depends on, and names none in its code.
public enum TestKeySources {
    @TaskLocal private static var bound: (any TestKeySource)?
    private static let configured = Locked<(any TestKeySource)?>(nil)

    /// The linked sources the kit looks for, in order of preference (OpenSSL first: the
    /// reference library, and the only one that generates every key type).
    public static let linkedSourceNames = [
        "TLSTrustPKIOpenSSL.OpenSSLKeySource",
        "TLSTrustPKISwiftCrypto.SwiftCryptoKeySource",
    ]

    /// A type of a linked module is found by its mangled name (the runtime's lookup does not read
    /// dotted names); for a struct `Module.Type` that is `<count>Module<count>TypeV`.
    private static let linked: (any TestKeySource)? = linkedSourceNames.lazy
        .compactMap { dotted -> (any LinkedTestKeySource.Type)? in
            let parts = dotted.split(separator: ".")
            let mangled = parts.map { "\($0.utf8.count)\($0)" }.joined() + "V"
            return _typeByName(mangled) as? any LinkedTestKeySource.Type
        }
        .first.map { $0.init() }

    /// The source in effect here.
    /// - Throws: ``TestPKIError`` when none is bound, set or linked.
    public static var current: any TestKeySource {
        get throws {
            if let bound { return bound }
            if let configured = configured.withLock({ $0 }) { return configured }
            if let linked { return linked }
            throw TestPKIError(operation: "choose a key source",
                               unsupported: "no key source: link TLSTrustPKIOpenSSL or TLSTrustPKISwiftCrypto, or call TestKeySources.setDefault(_:)")
        }
    }

    /// Makes `source` the process default (nil: back to the linked one).
    public static func setDefault(_ source: (any TestKeySource)?) {
        configured.withLock { $0 = source }
    }

    /// Runs `body` with `source` minting every key the current task generates.
    public static func withSource<Result>(_ source: any TestKeySource, _ body: () throws -> Result) rethrows -> Result {
        try $bound.withValue(source, operation: body)
    }

    /// Runs `body` with `source` minting every key the current task generates.
    public static func withSource<Result>(
        _ source: any TestKeySource, _ body: () async throws -> Result, isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> Result {
        try await $bound.withValue(source, operation: body, isolation: isolation)
    }
}
