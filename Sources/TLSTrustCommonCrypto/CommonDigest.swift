// CommonCrypto's message digests (CommonDigest.h) with Apple's Swift signatures, backed by
// OpenSSL's EVP digests (libcrypto), so that SPKI-hashing pinning code recompiles on Linux.
internal import COpenSSL

public typealias CC_LONG = UInt32

public let CC_SHA1_DIGEST_LENGTH: Int32 = 20
public let CC_SHA1_BLOCK_BYTES: Int32 = 64
public let CC_SHA224_DIGEST_LENGTH: Int32 = 28
public let CC_SHA224_BLOCK_BYTES: Int32 = 64
public let CC_SHA256_DIGEST_LENGTH: Int32 = 32
public let CC_SHA256_BLOCK_BYTES: Int32 = 64
public let CC_SHA384_DIGEST_LENGTH: Int32 = 48
public let CC_SHA384_BLOCK_BYTES: Int32 = 128
public let CC_SHA512_DIGEST_LENGTH: Int32 = 64
public let CC_SHA512_BLOCK_BYTES: Int32 = 128

/// One running digest, owning its `EVP_MD_CTX` (freed in `deinit`).
final class DigestContext {
    private let context: OpaquePointer
    private let algorithm: DigestAlgorithm

    init?(_ algorithm: DigestAlgorithm) {
        guard let context = EVP_MD_CTX_new() else { return nil }
        guard EVP_DigestInit_ex(context, algorithm.md, nil) == 1 else {
            EVP_MD_CTX_free(context)
            return nil
        }
        self.context = context
        self.algorithm = algorithm
    }

    private init?(copying other: DigestContext) {
        guard let context = EVP_MD_CTX_new() else { return nil }
        guard EVP_MD_CTX_copy_ex(context, other.context) == 1 else {
            EVP_MD_CTX_free(context)
            return nil
        }
        self.context = context
        algorithm = other.algorithm
    }

    deinit { EVP_MD_CTX_free(context) }

    func copy() -> DigestContext? { DigestContext(copying: self) }

    func update(_ data: UnsafeRawPointer?, _ length: CC_LONG) -> Bool {
        guard length > 0 else { return true }
        guard let data else { return false }
        return EVP_DigestUpdate(context, data, Int(length)) == 1
    }

    func final(_ md: UnsafeMutablePointer<UInt8>) -> Bool {
        var length: UInt32 = 0
        return EVP_DigestFinal_ex(context, md, &length) == 1
    }
}

enum DigestAlgorithm {
    case sha1, sha224, sha256, sha384, sha512

    var md: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha224: EVP_sha224()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }

    /// The one-shot digest; returns `md` as CommonCrypto does, or nil if the library failed.
    func digest(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
        guard let md, let context = DigestContext(self), context.update(data, len), context.final(md) else { return nil }
        return md
    }
}

/// The running state shared by the `Init`/`Update`/`Final` functions. Copying a context copies
/// the digest state (as copying the C struct does on Apple platforms).
public struct CC_DigestContextStorage {
    var context: DigestContext?

    mutating func uniqueContext() -> DigestContext? {
        if !isKnownUniquelyReferenced(&context) { context = context?.copy() }
        return context
    }
}

public struct CC_SHA1_CTX { var storage = CC_DigestContextStorage(); public init() {} }
public struct CC_SHA256_CTX { var storage = CC_DigestContextStorage(); public init() {} }
/// SHA-224 uses the SHA-256 context, as in CommonCrypto.
public typealias CC_SHA224_CTX = CC_SHA256_CTX
public struct CC_SHA512_CTX { var storage = CC_DigestContextStorage(); public init() {} }
/// SHA-384 uses the SHA-512 context, as in CommonCrypto.
public typealias CC_SHA384_CTX = CC_SHA512_CTX

private func initialize(_ storage: inout CC_DigestContextStorage, _ algorithm: DigestAlgorithm) -> Int32 {
    storage.context = DigestContext(algorithm)
    return storage.context == nil ? 0 : 1
}

private func update(_ storage: inout CC_DigestContextStorage, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    guard let context = storage.uniqueContext(), context.update(data, len) else { return 0 }
    return 1
}

private func finish(_ md: UnsafeMutablePointer<UInt8>?, _ storage: inout CC_DigestContextStorage) -> Int32 {
    guard let md, let context = storage.uniqueContext(), context.final(md) else { return 0 }
    storage.context = nil
    return 1
}

// MARK: SHA-1

@discardableResult
public func CC_SHA1(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    DigestAlgorithm.sha1.digest(data, len, md)
}
@discardableResult
public func CC_SHA1_Init(_ c: UnsafeMutablePointer<CC_SHA1_CTX>!) -> Int32 { initialize(&c.pointee.storage, .sha1) }
@discardableResult
public func CC_SHA1_Update(_ c: UnsafeMutablePointer<CC_SHA1_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(&c.pointee.storage, data, len)
}
@discardableResult
public func CC_SHA1_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA1_CTX>!) -> Int32 {
    finish(md, &c.pointee.storage)
}

// MARK: SHA-224

@discardableResult
public func CC_SHA224(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    DigestAlgorithm.sha224.digest(data, len, md)
}
@discardableResult
public func CC_SHA224_Init(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 { initialize(&c.pointee.storage, .sha224) }
@discardableResult
public func CC_SHA224_Update(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(&c.pointee.storage, data, len)
}
@discardableResult
public func CC_SHA224_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 {
    finish(md, &c.pointee.storage)
}

// MARK: SHA-256

@discardableResult
public func CC_SHA256(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    DigestAlgorithm.sha256.digest(data, len, md)
}
@discardableResult
public func CC_SHA256_Init(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 { initialize(&c.pointee.storage, .sha256) }
@discardableResult
public func CC_SHA256_Update(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(&c.pointee.storage, data, len)
}
@discardableResult
public func CC_SHA256_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 {
    finish(md, &c.pointee.storage)
}

// MARK: SHA-384

@discardableResult
public func CC_SHA384(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    DigestAlgorithm.sha384.digest(data, len, md)
}
@discardableResult
public func CC_SHA384_Init(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 { initialize(&c.pointee.storage, .sha384) }
@discardableResult
public func CC_SHA384_Update(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(&c.pointee.storage, data, len)
}
@discardableResult
public func CC_SHA384_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 {
    finish(md, &c.pointee.storage)
}

// MARK: SHA-512

@discardableResult
public func CC_SHA512(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    DigestAlgorithm.sha512.digest(data, len, md)
}
@discardableResult
public func CC_SHA512_Init(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 { initialize(&c.pointee.storage, .sha512) }
@discardableResult
public func CC_SHA512_Update(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(&c.pointee.storage, data, len)
}
@discardableResult
public func CC_SHA512_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 {
    finish(md, &c.pointee.storage)
}
