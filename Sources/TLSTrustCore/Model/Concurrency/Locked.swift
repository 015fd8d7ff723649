#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that is only read or changed while holding a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex` everywhere in TLSTrust for one reason: ThreadSanitizer
/// on Linux does not model the standard library's futex-based `Mutex`, so every critical section
/// of a correct program is reported as a data race (`Tests/Leaks/tsan-mutex-reproduction.swift`
/// shows it in twelve lines), and a suite full of false reports hides the true ones. TSan
/// intercepts `pthread_mutex_lock`, so with this lock `swift test --sanitize=thread` reports only
/// real races. The value and the mutex share one allocation (a `ManagedBuffer`), as in
/// swift-nio's `NIOLockedValueBox`; the hot-path instruction counts in docs/benchmarks.md were
/// measured with this lock in place.
///
/// The API is `Mutex`'s: the value is reached only inside ``withLock(_:)``. Unlike `Mutex`, the
/// value must be `Sendable` for the lock to be (`Mutex` proves the weaker `sending` contract with
/// compiler support a library cannot use). The lock is not recursive: calling `withLock` on the same `Locked` from inside its own body deadlocks,
/// exactly as with `Mutex`.
///
/// ```swift
/// let seen = Locked<[String]>([])
/// seen.withLock { $0.append("www.example.com") }
/// ```
package struct Locked<Value> {
    private let storage: LockedStorage<Value>

    /// Creates the lock holding `initialValue`.
    package init(_ initialValue: Value) {
        storage = LockedStorage.make(initialValue)
    }

    /// Creates the lock holding `initialValue`, `isolated` from its neighbours in memory: the
    /// allocation is padded past the mutex by more than a cache line, so that the lock word of one
    /// of several locks made one after the other (the stripes of a cache) does not share a cache
    /// line with the next one's, and threads taking different locks do not slow each other down.
    package init(_ initialValue: Value, isolated: Bool) {
        storage = LockedStorage.make(initialValue, mutexSlots: isolated ? 4 : 1)
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// Keep `body` short and free of blocking calls: every other thread that needs the value waits
    /// for it.
    package func withLock<Result, E: Error>(
        _ body: (inout Value) throws(E) -> Result
    ) throws(E) -> Result {
        try storage.withLock(body)
    }
}

extension Locked: @unchecked Sendable where Value: Sendable {}
// @unchecked: the value is reached only inside `withLock`, with the mutex held, and it is
// `Sendable`, so what `withLock` hands out may cross threads. Copies of a `Locked` share one value
// and one mutex.

/// The allocation behind `Locked`: the value as the buffer's header and one `pthread_mutex_t`
/// as its only element, so that the two live in one allocation.
private final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    /// `mutexSlots` beyond the first are padding, never initialised or used.
    static func make(_ value: Value, mutexSlots: Int = 1) -> LockedStorage {
        let buffer = create(minimumCapacity: mutexSlots) { _ in value }
        let storage = unsafeDowncast(buffer, to: LockedStorage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        }
        return storage
    }

    deinit {
        // ManagedBuffer deinitialises the header (the value) itself; the element is ours.
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }

    func withLock<Result, E: Error>(
        _ body: (inout Value) throws(E) -> Result
    ) throws(E) -> Result {
        // The pointers stay valid while `self` is alive, which the caller's reference guarantees.
        let (value, mutex) = withUnsafeMutablePointers { ($0, $1) }
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }
        return try body(&value.pointee)
    }
}
