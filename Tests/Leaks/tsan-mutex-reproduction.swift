// ThreadSanitizer on Linux does not model Synchronization.Mutex (futex-based): this correct
// program, four threads updating a dictionary only inside `withLock`, gets "Swift access race"
// reports. Every ThreadSanitizer report of TLSTrust's suite (docs/security.md) has this shape.
//
//   swiftc -sanitize=thread -O Tests/Leaks/tsan-mutex-reproduction.swift -o /tmp/m && /tmp/m
//
// Swift 6.3.1, Debian 12, x86_64: prints "100" and two "WARNING: ThreadSanitizer: Swift access race".
import Synchronization
import Foundation
final class Box: Sendable { let m = Mutex<[Int: Int]>([:]) }
let box = Box()
let group = DispatchGroup()
for t in 0..<4 {
    DispatchQueue.global().async(group: group) {
        for i in 0..<20000 { box.m.withLock { $0[i % 100, default: 0] += t } }
    }
}
group.wait()
print(box.m.withLock { $0.count })
