@_exported import Foundation
import TLSTrust

// The CoreFoundation types as Swift sees them on Apple platforms. swift-corelibs-foundation does not
// export them on Linux (checked: none of these names exists there), so they are declared here as
// aliases of the Foundation classes they are toll-free bridged to on Apple platforms. That keeps
// `data as CFData`, `"host" as CFString`, `[cert] as CFArray`, `dict as CFDictionary` and the casts
// back compiling and working as they do on Apple platforms.

public typealias CFData = NSData
public typealias CFString = NSString
public typealias CFArray = NSArray
public typealias CFDictionary = NSDictionary
/// An `Error`, as on Apple platforms.
public typealias CFError = NSError
public typealias CFDate = NSDate
public typealias CFNumber = NSNumber
public typealias CFTypeRef = AnyObject
public typealias CFIndex = Int
public typealias CFOptionFlags = UInt
public typealias CFAbsoluteTime = Double
public typealias CFTypeID = UInt
public typealias CFHashCode = UInt
public typealias CFErrorDomain = CFString
public typealias OSStatus = Int32

/// An allocator. Only the default exists on Linux; every `allocator` parameter accepts it or nil.
public final class CFAllocator: Sendable {
    init() {}
}

/// The default allocator (what passing nil means).
public let kCFAllocatorDefault: CFAllocator! = CFAllocator()

// MARK: Type identifiers

/// Type identifiers of the Core Foundation and Security types this module knows. The values are
/// this module's own (Apple's differ between OS releases, and no code should compare them with
/// literals); each type has a distinct one.
enum TypeIdentifiers {
    static let data: CFTypeID = 20
    static let string: CFTypeID = 7
    static let array: CFTypeID = 19
    static let dictionary: CFTypeID = 18
    static let date: CFTypeID = 42
    static let number: CFTypeID = 22
    static let error: CFTypeID = 26
    static let allocator: CFTypeID = 2
    static let certificate: CFTypeID = 300
    static let trust: CFTypeID = 301
    static let policy: CFTypeID = 302
    static let key: CFTypeID = 303
    static let identity: CFTypeID = 304
    static let unknown: CFTypeID = 0
}

public func CFDataGetTypeID() -> CFTypeID { TypeIdentifiers.data }
public func CFStringGetTypeID() -> CFTypeID { TypeIdentifiers.string }
public func CFArrayGetTypeID() -> CFTypeID { TypeIdentifiers.array }
public func CFDictionaryGetTypeID() -> CFTypeID { TypeIdentifiers.dictionary }
public func CFDateGetTypeID() -> CFTypeID { TypeIdentifiers.date }
public func CFNumberGetTypeID() -> CFTypeID { TypeIdentifiers.number }
public func CFErrorGetTypeID() -> CFTypeID { TypeIdentifiers.error }

/// The type identifier of `cf`: compare it with `SecCertificateGetTypeID()` and the like.
public func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID {
    switch cf {
    case is SecCertificate: TypeIdentifiers.certificate
    case is SecTrust: TypeIdentifiers.trust
    case is SecPolicy: TypeIdentifiers.policy
    case is SecKey: TypeIdentifiers.key
    case is SecIdentity: TypeIdentifiers.identity
    case is NSData: TypeIdentifiers.data
    case is NSString: TypeIdentifiers.string
    case is NSArray: TypeIdentifiers.array
    case is NSDictionary: TypeIdentifiers.dictionary
    case is NSDate: TypeIdentifiers.date
    case is NSNumber: TypeIdentifiers.number
    case is NSError: TypeIdentifiers.error
    case is CFAllocator: TypeIdentifiers.allocator
    default: TypeIdentifiers.unknown
    }
}

/// Whether two objects are equal as their types define it (certificates by DER, keys by key
/// material, trusts and policies by identity, Foundation objects by `isEqual`).
public func CFEqual(_ cf1: CFTypeRef!, _ cf2: CFTypeRef!) -> Bool {
    guard let cf1, let cf2 else { return cf1 === cf2 }
    if let a = cf1 as? any Hashable, let b = cf2 as? any Hashable { return AnyHashable(a) == AnyHashable(b) }
    return cf1 === cf2
}

/// A hash consistent with ``CFEqual(_:_:)``.
public func CFHash(_ cf: CFTypeRef!) -> CFHashCode {
    guard let cf else { return 0 }
    if let h = cf as? any Hashable { return CFHashCode(bitPattern: AnyHashable(h).hashValue) }
    return CFHashCode(bitPattern: ObjectIdentifier(cf).hashValue)
}

// MARK: CFArray, CFDictionary, CFData, CFDate, CFError

public func CFArrayGetCount(_ theArray: CFArray!) -> CFIndex { theArray.count }

/// The element at `idx` as a raw pointer, as Core Foundation returns it; turn it back into an
/// object with `unsafeBitCast(_:to:)` or `Unmanaged<…>.fromOpaque(_:)`.
///
/// Objects stored in the array (certificates, trusts, policies, keys) come back as themselves. A
/// bridged Swift value (a `String` in a `[String]`) is boxed anew on Linux, so the box is kept alive
/// by a small recent-results pool (the last 256), long enough for the usual immediate use.
public func CFArrayGetValueAtIndex(_ theArray: CFArray!, _ idx: CFIndex) -> UnsafeRawPointer! {
    guard idx >= 0, idx < theArray.count else { return nil }
    return RecentObjects.pointer(to: theArray.object(at: idx) as AnyObject)
}

/// The value for `key` (a pointer to a key object, e.g. `Unmanaged.passUnretained(kSecAttrKeyType).toOpaque()`),
/// or nil. The same lifetime note as ``CFArrayGetValueAtIndex(_:_:)`` applies.
public func CFDictionaryGetValue(_ theDict: CFDictionary!, _ key: UnsafeRawPointer!) -> UnsafeRawPointer! {
    guard let key else { return nil }
    let keyObject = Unmanaged<AnyObject>.fromOpaque(key).takeUnretainedValue()
    guard let value = theDict.object(forKey: keyObject) else { return nil }
    return RecentObjects.pointer(to: value as AnyObject)
}

public func CFDataGetLength(_ theData: CFData!) -> CFIndex { theData.length }

/// The bytes of `theData`, valid as long as `theData` is.
public func CFDataGetBytePtr(_ theData: CFData!) -> UnsafePointer<UInt8>! {
    theData.length == 0 ? nil : theData.bytes.assumingMemoryBound(to: UInt8.self)
}

public func CFDateCreate(_ allocator: CFAllocator!, _ at: CFAbsoluteTime) -> CFDate! {
    NSDate(timeIntervalSinceReferenceDate: at)
}

public func CFAbsoluteTimeGetCurrent() -> CFAbsoluteTime { Date().timeIntervalSinceReferenceDate }

public func CFErrorGetCode(_ err: CFError!) -> CFIndex { err.code }

public func CFErrorGetDomain(_ err: CFError!) -> CFErrorDomain! { err.domain as CFString }

public func CFErrorCopyDescription(_ err: CFError!) -> CFString! { err.localizedDescription as CFString }

/// Keeps the objects handed out as raw pointers alive for a while (see ``CFArrayGetValueAtIndex(_:_:)``).
enum RecentObjects {
    /// @unchecked Sendable: the objects are only retained here, never read back or used, so no
    /// thread ever touches one through the pool.
    private struct Pool: @unchecked Sendable {
        var objects: [AnyObject] = []
        var next = 0
    }
    private static let pool = Locked(Pool())
    private static let capacity = 256

    static func pointer(to object: AnyObject) -> UnsafeRawPointer {
        pool.withLock { state in
            if state.objects.count < capacity {
                state.objects.append(object)
            } else {
                state.objects[state.next] = object
                state.next = (state.next + 1) % capacity
            }
        }
        return UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }
}
