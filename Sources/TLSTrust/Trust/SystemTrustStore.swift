import Foundation

/// The operating system's CA certificates: where they are, and their parsed contents.
///
/// TLSTrust reads the store itself, once per location, and hands the same certificates to every
/// backend, so that OpenSSL, GnuTLS and mbedTLS judge "the system store" identically.
///
/// Location, in order:
/// 1. `SSL_CERT_FILE` and/or `SSL_CERT_DIR`, when either is set: exactly what they name (a PEM
///    bundle; a directory whose `*.pem`, `*.crt` and OpenSSL hash-named files are read). This is
///    how a test or a container points every backend at another store.
/// 2. Otherwise the first distribution bundle that exists: Debian/Ubuntu
///    `/etc/ssl/certs/ca-certificates.crt`, Fedora/RHEL, openSUSE, Alpine and Arch locations.
public struct SystemTrustStore: Sendable, Hashable, CustomStringConvertible {
    /// PEM bundle files to read.
    public let files: [String]
    /// Directories to read certificates from.
    public let directories: [String]

    public init(files: [String], directories: [String] = []) {
        self.files = files
        self.directories = directories
    }

    /// Distribution CA bundle paths, most common first.
    public static let distributionBundles = [
        "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, Alpine, Arch
        "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL 7+
        "/etc/ssl/ca-bundle.pem",  // openSUSE
        "/etc/ssl/cert.pem",  // Alpine, macOS-like layouts
    ]

    /// The store the environment designates now (see the type's documentation).
    public static var current: SystemTrustStore {
        let env = ProcessInfo.processInfo.environment
        let file = env["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let dir = env["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        if file != nil || dir != nil {
            // SSL_CERT_DIR may list several directories separated by ':' as OpenSSL allows.
            return SystemTrustStore(files: file.map { [$0] } ?? [], directories: dir.map { $0.split(separator: ":").map(String.init) } ?? [])
        }
        let fm = FileManager.default
        if let bundle = distributionBundles.first(where: { fm.isReadableFile(atPath: $0) }) {
            return SystemTrustStore(files: [bundle])
        }
        return SystemTrustStore(files: [])
    }

    public var description: String {
        let all = files + directories.map { $0 + "/" }
        return all.isEmpty ? "(no system trust store found)" : all.joined(separator: ", ")
    }

    /// One slot per location; a slot's lock is held while the store is read, so concurrent first
    /// callers wait for one load instead of each reading the store.
    private final class Slot: Sendable {
        let certificates = Locked<[Certificate]?>(nil)
    }

    private static let slots = Locked<[SystemTrustStore: Slot]>([:])

    /// The certificates in the store, read and parsed once per location for the life of the
    /// process (callers that arrive during the first read wait for it).
    ///
    /// Fails closed: an unreadable file or a malformed entry contributes no anchor (it is skipped,
    /// never trusted); a store that cannot be found is empty, so nothing chains to it.
    public func certificates() -> [Certificate] {
        let slot = Self.slots.withLock { slots in
            if let slot = slots[self] { return slot }
            let slot = Slot()
            slots[self] = slot
            return slot
        }
        return slot.certificates.withLock { loaded in
            if let loaded { return loaded }
            let read = load()
            loaded = read
            return read
        }
    }

    /// Reads the store now, on a background thread, so that the first evaluation against it does
    /// not wait for the read (or waits only for what is left of it). Returns at once.
    ///
    /// ```swift
    /// SystemTrustStore.current.warmUpInBackground()   // at launch, long before the first handshake
    /// ```
    public func warmUpInBackground() {
        Thread.detachNewThread { _ = TrustAnchors([], includingSystemStore: true, systemStore: self).prepareForEngine() }
    }

    private func load() -> [Certificate] {
        var seen = Set<Certificate>()
        var result: [Certificate] = []
        func add(contentsOf path: String) {
            guard let data = FileManager.default.contents(atPath: path) else { return }
            let bytes = [UInt8](data)
            var certs: [Certificate] = []
            if let all = try? Certificate.certificates(pemOrDER: bytes) {
                certs = all
            } else if let blocks = try? PEMBlock.parseAll(bytes) {
                certs = blocks.filter { $0.label == "CERTIFICATE" }.compactMap { try? Certificate(derEncoded: $0.der) }
            }
            for c in certs where seen.insert(c).inserted { result.append(c) }
        }
        for file in files { add(contentsOf: file) }
        for dir in directories {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            for name in names where Self.isCertificateFileName(name) { add(contentsOf: dir + "/" + name) }
        }
        return result
    }

    static func isCertificateFileName(_ name: String) -> Bool {
        if name.hasSuffix(".pem") || name.hasSuffix(".crt") || name.hasSuffix(".cer") { return true }
        // OpenSSL's c_rehash names: 8 hex digits, a dot, a number.
        let parts = name.split(separator: ".")
        return parts.count == 2 && parts[0].count == 8 && parts[0].allSatisfy(\.isHexDigit) && parts[1].allSatisfy(\.isNumber)
    }
}
