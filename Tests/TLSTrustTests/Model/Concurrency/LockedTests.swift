import Dispatch
import TLSTrust
import Testing

/// `Locked` is the only lock in the package (it replaced `Synchronization.Mutex`, which
/// ThreadSanitizer cannot follow on Linux): it must exclude, hand back results and errors, and be
/// shared by copies.
@Suite("Locked")
struct LockedTests {
    @Test func excludesConcurrentWriters() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func returnsTheBodysResultAndRethrowsItsError() {
        struct Refused: Error, Equatable {}
        let names = Locked<[String]>(["a"])
        #expect(names.withLock { $0.append("b"); return $0.count } == 2)
        #expect(throws: Refused()) { try names.withLock { _ throws(Refused) in throw Refused() } }
        #expect(names.withLock { $0 } == ["a", "b"], "a throwing body leaves the value as it was")
    }

    @Test func copiesShareOneValue() {
        let original = Locked(1)
        let copy = original
        copy.withLock { $0 = 2 }
        #expect(original.withLock { $0 } == 2)
    }
}
