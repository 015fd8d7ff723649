import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TLSTrust
@_spi(Benchmarking) import TLSTrustCore
import TLSTrustToolSupport

/// `tlstrust-dev bench --memory`: bytes kept per cached verified chain, per parsed certificate and per
/// imported key, and what each cache holds at its bound, measured as the growth of the heap's
/// allocated bytes (glibc's `mallinfo2()`) while `count` of them are kept alive.
enum BenchMemory {
    struct Row {
        let what: String
        let backend: String
        let chain: String
        let count: Int
        let bytes: Int
        var bytesEach: Int { count > 0 ? bytes / count : 0 }
    }

    /// Heap bytes in use now (glibc's `mallinfo2()`: `uordblks + hblkhd`, the bytes in allocated
    /// chunks and in mmapped ones), or nil where it cannot be read. The Glibc module does not import
    /// `<malloc.h>`, so the function is looked up by name and called as the x86-64 System V ABI
    /// calls a function returning a large struct (the result's address is its one argument).
    static func heapBytes() -> Int? {
        #if canImport(Glibc) && arch(x86_64)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallinfo2") else { return nil }
        typealias MallInfo2 = @convention(c) (UnsafeMutableRawPointer) -> Void
        var fields = [Int](repeating: 0, count: 10)  // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost
        fields.withUnsafeMutableBytes { unsafeBitCast(symbol, to: MallInfo2.self)($0.baseAddress!) }
        return fields[7] + fields[4]
        #else
        return nil
        #endif
    }

    /// The heap's growth while `make` builds something that is kept until the measurement ends.
    static func growth<T>(_ make: () throws -> T) rethrows -> (Int, T) {
        let before = heapBytes() ?? 0
        let kept = try make()
        let after = heapBytes() ?? 0
        return (after - before, kept)
    }

    /// A copy of `der` with its serial number's last byte replaced by `n`: a distinct certificate
    /// that parses as the original does (signatures are not checked by a parse), for filling the
    /// parse cache with distinct entries.
    static func variant(of der: [UInt8], _ n: UInt16) -> [UInt8] {
        var bytes = der
        // Certificate SEQUENCE → TBSCertificate SEQUENCE → [0] version → INTEGER serial.
        func headerLength(at i: Int) -> (length: Int, header: Int) {
            let first = bytes[i + 1]
            if first < 0x80 { return (Int(first), 2) }
            let n = Int(first & 0x7F)
            return (bytes[(i + 2)..<(i + 2 + n)].reduce(0) { $0 << 8 | Int($1) }, 2 + n)
        }
        let tbs = headerLength(at: 0).header
        var i = tbs + headerLength(at: tbs).header
        if bytes[i] == 0xA0 { let v = headerLength(at: i); i += v.header + v.length }
        let serial = headerLength(at: i)
        let last = i + serial.header + serial.length - 1
        bytes[last] = UInt8(truncatingIfNeeded: n)
        bytes[last - 1] = 0x40 | UInt8(truncatingIfNeeded: n >> 8 & 0x3F)
        return bytes
    }

    static func measure(fixture: BenchFixture, chain: BenchChain, backends: [any TrustBackend]) throws -> [Row] {
        var rows: [Row] = []
        let leafDER = fixture.presentedDER[0]
        let restoreParse = CertificateParseCache.isEnabled
        defer { CertificateParseCache.isEnabled = restoreParse }
        VerifiedChainCache.isEnabled = true
        VerificationKeyCache.isEnabled = true
        VerificationKeyCache.keepsKeysWithCertificates = true

        // A parsed certificate, its DER included (a fresh copy each time).
        CertificateParseCache.isEnabled = false
        let copies = (0..<200).map { _ in leafDER.withUnsafeBufferPointer { Array($0) } }
        let (parsed, certificates) = try growth { try copies.map { try Certificate(derEncoded: $0) } }
        rows.append(Row(what: "parsed certificate (leaf, \(leafDER.count)-byte DER, not counted: the DER itself)", backend: "core",
                        chain: chain.rawValue, count: certificates.count, bytes: parsed))
        _ = certificates.count

        // The parse cache at its bound: distinct certificates, kept by the cache only.
        CertificateParseCache.isEnabled = true
        CertificateParseCache.removeAll()
        let capacity = CertificateParseCache.capacity
        let variants = (0..<capacity).map { variant(of: leafDER, UInt16($0)) }
        let variantBytes = variants.reduce(0) { $0 + $1.count }
        let (cached, _) = try growth { () -> Int in
            for der in variants { _ = try Certificate(derEncoded: der) }
            return CertificateParseCache.count
        }
        rows.append(Row(what: "CertificateParseCache at its bound (\(CertificateParseCache.count) of \(capacity); DER counted)", backend: "core",
                        chain: chain.rawValue, count: CertificateParseCache.count, bytes: cached + variantBytes))
        CertificateParseCache.removeAll()

        for backend in backends {
            // An imported key: the intermediate's, imported 100 times and kept.
            let key = fixture.intermediate.publicKey
            let (imported, keys) = try growth { try (0..<100).map { _ in try backend.importPublicKey(key) } }
            rows.append(Row(what: "imported key (intermediate's)", backend: backend.name, chain: chain.rawValue,
                            count: keys.count, bytes: imported))
            _ = keys.count

            // Verified chains: one trusted evaluation cached per maximum depth (each depth is a
            // key of its own), on a fresh anchor set; the certificates are shared with the
            // presented ones, so an entry's bytes are the entry and its evaluation only.
            let anchors = TrustAnchors.only([fixture.root])
            let chainCertificates = try fixture.presentedDER.map { try Certificate(derEncoded: $0) }
            let first = Trust(certificates: chainCertificates, policies: [.ssl(hostname: BenchFixture.host)], anchors: anchors)
            _ = first.evaluate(using: backend)  // the anchor set's index and store, made once
            anchors.removeVerifiedChains()
            let entries = 200
            let (verified, _) = growth { () -> Int in
                for depth in 0..<entries {
                    let trust = Trust(certificates: chainCertificates, policies: [.ssl(hostname: BenchFixture.host), .maximumChainDepth(2 + depth)],
                                      anchors: anchors)
                    _ = trust.evaluate(using: backend)
                }
                return anchors.verifiedChainCount
            }
            rows.append(Row(what: "verified chain cached (certificates shared, not counted)", backend: backend.name, chain: chain.rawValue,
                            count: anchors.verifiedChainCount, bytes: verified))
            anchors.removeVerifiedChains()
        }
        return rows
    }

    static func table(_ rows: [Row]) -> String {
        var table = TextTable(headers: ["what", "backend", "chain", "kept", "bytes", "bytes each"])
        for r in rows { table.add([r.what, r.backend, r.chain, "\(r.count)", "\(r.bytes)", "\(r.bytesEach)"]) }
        return table.render() + "\n\nHeap growth (glibc mallinfo2(): uordblks + hblkhd) while the items are kept alive. Bounds: CertificateParseCache "
            + "\(CertificateParseCache.capacity) certificates, VerificationKeyCache \(VerificationKeyCache.capacity) keys, VerifiedChainCache "
            + "\(VerifiedChainCache.capacity) chains per anchor set (LRU each)."
    }
}
