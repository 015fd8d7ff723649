import Foundation

/// The operating system's CA certificates: where they are, and their parsed contents.
///
/// TLSTrust reads the store itself, once per location, and hands the same certificates to every
/// backend, so that OpenSSL, GnuTLS and mbedTLS judge "the system store" identically. It reads it
/// again when its files change (checked at most every ``checkInterval``, or at once with
/// ``reload()``), so that a long-running server sees `update-ca-certificates` without a restart —
/// a CA the administrator removed stops being trusted.
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

    /// What one location held when last read, and when that was last checked.
    private struct Loaded {
        var certificates: [Certificate]
        var signature: [FileSignature]
        var checkedAt: ContinuousClock.Instant
        var loadedAt: Date
        var generation: Int
    }

    /// One slot per location; a slot's lock is held while the store is read, so concurrent first
    /// callers wait for one load instead of each reading the store.
    private final class Slot: Sendable {
        let state = Locked<Loaded?>(nil)
    }

    private static let slots = Locked<[SystemTrustStore: Slot]>([:])
    private static let interval = Locked<Duration>(.seconds(60))

    /// How often, at most, the store's files are checked for a change (size, modification time,
    /// inode — what `update-ca-certificates` changes). Default 60 seconds; `.zero` checks on every
    /// use. A long-running server thus sees a CA added or removed within this interval, without
    /// a restart; ``reload()`` checks at once.
    public static var checkInterval: Duration {
        get { interval.withLock { $0 } }
        set { interval.withLock { $0 = newValue } }
    }

    /// The certificates in the store, read and parsed once per location and read again when its
    /// files change (checked at most every ``checkInterval``; callers that arrive during a read
    /// wait for it).
    ///
    /// Fails closed: an unreadable file or a malformed entry contributes no anchor (it is skipped,
    /// never trusted); a store that cannot be found is empty, so nothing chains to it.
    public func certificates() -> [Certificate] { loaded(force: false).certificates }

    /// A number that changes each time the store's contents change (0 for the first read). Caches
    /// built from the store (prepared anchor stores, verified chains) compare it to drop what they
    /// built from an older store.
    public var generation: Int { loaded(force: false).generation }

    /// Checks the store's files now and reads them again if they changed: call it after
    /// `update-ca-certificates`, or on SIGHUP, rather than waiting for ``checkInterval``.
    ///
    /// - Returns: whether the anchors changed.
    @discardableResult
    public func reload() -> Bool {
        // The generation as last read, without checking the files: reading `generation` would let
        // a due interval check notice the change first, and then this call would see none.
        let before = lastRead?.generation ?? loaded(force: false).generation
        return loaded(force: true).generation != before
    }

    /// What was read last, without checking the files; nil if the store was never read.
    private var lastRead: Loaded? {
        Self.slots.withLock { $0[self] }.flatMap { slot in slot.state.withLock { $0 } }
    }

    /// What was read: the location, how many anchors, when, and how many times it changed.
    public struct Status: Sendable, CustomStringConvertible {
        public let store: SystemTrustStore
        public let anchorCount: Int
        public let loadedAt: Date
        public let generation: Int
        public var description: String {
            "\(store): \(anchorCount) anchor\(anchorCount == 1 ? "" : "s"), read \(ISO8601DateFormatter().string(from: loadedAt))"
                + (generation > 0 ? " (reloaded \(generation) time\(generation == 1 ? "" : "s"))" : "")
        }
    }

    /// The store's status, reading it first if it was never read.
    public var status: Status {
        let state = loaded(force: false)
        return Status(store: self, anchorCount: state.certificates.count, loadedAt: state.loadedAt, generation: state.generation)
    }

    private func loaded(force: Bool) -> Loaded {
        let slot = Self.slots.withLock { slots in
            if let slot = slots[self] { return slot }
            let slot = Slot()
            slots[self] = slot
            return slot
        }
        let now = ContinuousClock.now
        return slot.state.withLock { state in
            if var current = state {
                if !force && now - current.checkedAt < Self.checkInterval { return current }
                let signature = fileSignature()
                current.checkedAt = now
                if signature != current.signature {
                    let read = load()
                    current.signature = signature
                    current.loadedAt = Date()
                    if read != current.certificates {
                        current.certificates = read
                        current.generation += 1
                    }
                }
                state = current
                return current
            }
            let signature = fileSignature()
            let first = Loaded(certificates: load(), signature: signature, checkedAt: now, loadedAt: Date(), generation: 0)
            state = first
            return first
        }
    }

    /// What identifies one file's version without reading it.
    private struct FileSignature: Hashable {
        let path: String
        let size: Int
        let modified: Date?
        let inode: Int
    }

    /// The files of the store and of its directories, with their sizes, modification times and
    /// inodes: `update-ca-certificates` replaces the bundle (a new inode) and the directory's links.
    private func fileSignature() -> [FileSignature] {
        let fm = FileManager.default
        func signature(_ path: String) -> FileSignature {
            let attributes = (try? fm.attributesOfItem(atPath: path)) ?? [:]
            return FileSignature(path: path, size: (attributes[.size] as? NSNumber)?.intValue ?? -1,
                                 modified: attributes[.modificationDate] as? Date,
                                 inode: (attributes[.systemFileNumber] as? NSNumber)?.intValue ?? -1)
        }
        var result = files.map(signature)
        for dir in directories {
            result.append(signature(dir))
            let names = ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            for name in names where Self.isCertificateFileName(name) { result.append(signature(dir + "/" + name)) }
        }
        return result
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
