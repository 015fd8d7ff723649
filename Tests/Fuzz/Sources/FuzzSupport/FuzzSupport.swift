import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustPKI

/// What every fuzz target shares: the backends, the `--make-seeds` mode, input splitting.
public enum Fuzz {
    /// Every backend, in a fixed order (each also conforms to `TLSBackend`).
    public static let backends: [any TLSBackend] = [OpenSSLTrustBackend(), GnuTLSTrustBackend(), MbedTLSTrustBackend()]

    /// The bytes libFuzzer passes, copied into an array (an empty input gives an empty array).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// What every target's `LLVMFuzzerInitialize` does first: handles `--make-seeds` (see
    /// ``handleMakeSeeds(_:_:target:make:)``), then turns the caches off, so that every input is
    /// parsed, imported and judged for real and no earlier input's result is reused.
    public static func initialize(
        _ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?,
        target: String, make: () throws -> [(name: String, bytes: [UInt8])]
    ) {
        handleMakeSeeds(argc, argv, target: target, make: make)
        CertificateParseCache.isEnabled = false
        VerificationKeyCache.isEnabled = false
        VerifiedChainCache.isEnabled = false
    }

    /// Handles `--make-seeds DIR` for `LLVMFuzzerInitialize`: when present, writes every seed
    /// `make` returns into DIR (one file per seed, named by the seed's name) and exits; otherwise
    /// returns and libFuzzer runs as usual.
    ///
    /// The seeds are minted by the test-PKI factory when this runs, so no certificate in them is
    /// committed and none can expire in git.
    public static func handleMakeSeeds(
        _ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?,
        target: String, make: () throws -> [(name: String, bytes: [UInt8])]
    ) {
        guard let argc, let argv, let list = argv.pointee else { return }
        var arguments: [String] = []
        for i in 0..<Int(argc.pointee) {
            if let p = list[i] { arguments.append(String(cString: p)) }
        }
        guard let flag = arguments.firstIndex(of: "--make-seeds") else { return }
        guard flag + 1 < arguments.count else {
            FileHandle.standardError.write(Data("usage: \(target) --make-seeds DIR\n".utf8))
            exit(2)
        }
        let directory = URL(fileURLWithPath: arguments[flag + 1], isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let seeds = try make()
            for seed in seeds {
                try Data(seed.bytes).write(to: directory.appendingPathComponent("seed-" + seed.name))
            }
            print("\(target): wrote \(seeds.count) seeds to \(directory.path)")
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(target): cannot make seeds: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Splits `bytes` into consecutive DER TLVs (each a candidate certificate), by the length in
    /// each header. A truncated or indefinite-length header ends the list; the remainder, if any,
    /// is returned as the last element so that the parsers see it too. At most `limit` parts.
    public static func splitDER(_ bytes: [UInt8], limit: Int = 8) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count, parts.count < limit {
            guard let length = tlvLength(bytes, at: offset), length > 0, offset + length <= bytes.count else {
                parts.append(Array(bytes[offset...]))
                break
            }
            parts.append(Array(bytes[offset..<offset + length]))
            offset += length
        }
        return parts
    }

    /// The total length (header + content) of the TLV at `offset`, or nil.
    static func tlvLength(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard offset + 2 <= bytes.count else { return nil }
        let first = bytes[offset + 1]
        if first < 0x80 { return 2 + Int(first) }
        let count = Int(first & 0x7F)
        guard count >= 1, count <= 3, offset + 2 + count <= bytes.count else { return nil }
        var length = 0
        for i in 0..<count { length = length << 8 | Int(bytes[offset + 2 + i]) }
        return 2 + count + length
    }

    /// A 64-bit FNV-1a digest of `bytes` in hex, to name files by their content.
    public static func digestHex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// An environment variable, or `fallback`.
    public static func environment(_ name: String, _ fallback: String) -> String {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
    }

    /// Writes a line to standard error (libFuzzer's own output goes there too).
    public static func log(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// A fixed server identity for the seeds and for the ClientHello target's servers.
public enum FuzzPKI {
    /// A root → intermediate → leaf hierarchy (ECDSA P-256) for `www.example.com`.
    public static func hierarchy() throws -> TestHierarchy { try TestHierarchy.make() }
}
