import ArgumentParser
import Foundation
import TLSTrust
@_spi(Benchmarking) @_spi(Comparison) import TLSTrustCore
import TLSTrustToolSupport
import TLSTrustTesting

/// `tlstrust-dev bench`: a quick comparison of the backends on a freshly generated PKI.
///
/// For each backend and chain (root → intermediate → leaf for `www.example.com`, the root as the
/// only anchor, the SSL server policy) it measures, one after the other:
///
/// | operation | what one iteration does |
/// |---|---|
/// | `parse` | the core parses the presented chain (leaf + intermediate) from DER (backend `core`) |
/// | `evaluate` | parse + the engine's evaluation, from DER, nothing reused between iterations but the prepared anchors |
/// | `evaluate-native` | parse + the library's own verifier through TLSTrust's comparison API (`Trust.evaluateNatively(using:)`) |
/// | `evaluate-cold` | `evaluate` with every cache off: verified chains, parsed certificates and imported keys (``VerificationKeyCache``), so the presented certificates are parsed and their keys imported into the library on every iteration; the anchors are prepared once, their keys included, as `raw-c`'s store is (hidden `--cold-anchor-keys`: the anchors' keys are imported again on every iteration too) |
/// | `evaluate-cached` | parse + evaluation of a chain already verified: the parse cache and the verified-chain cache answer |
/// | `evaluate-stapled` | `evaluate` with hard-fail revocation of the leaf and a stapled OCSP response (the same bytes each time, as a server staples them) |
/// | `evaluate-crl` | `evaluate` with hard-fail revocation of the leaf against a given CRL of 100,000 entries (parsed once, outside the loop) |
/// | `evaluate-cached-stapled`, `evaluate-cached-crl` | the same on a chain already verified: the verified-chain cache answers the path, and only its revocation is checked again |
/// | `evaluate-ct`, `evaluate-cached-ct` | `evaluate` and `evaluate-cached` with Apple's CT policy and two SCTs delivered by TLS (two logs of two operators, ECDSA P-256): uncached, each SCT's signature is verified every time; cached, the report kept with the leaf answers |
/// | `raw-c` | the library alone, from DER: its parse + its verifier (`RawVerificationBenchmark.verifyFromDER`) |
/// | `signature-floor` | the chain's two signature verifications with keys imported beforehand |
/// | `handshake-tls13`, `handshake-tls12` | a full handshake over in-memory pipes, both sides on the backend, the client deciding trust with the engine (verified-chain cache warm) |
/// | (`handshake-tls13-unverified`, …) | the same, the client accepting without a decision: the baseline, reported as `unverifiedOperationsPerSecond` of the handshake in JSON |
///
/// The operation names and the JSON fields are a contract: scripts rely on them.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure evaluation throughput per backend on a freshly generated PKI.",
        discussion: """
            Operations: parse, evaluate (engine, from DER), evaluate-cold (the same with every cache \
            off, keys imported again each time), evaluate-native (the library's verifier \
            through TLSTrust), evaluate-cached (re-evaluation of a verified chain), evaluate-stapled / evaluate-crl \
            (evaluate with hard-fail revocation of the leaf against a stapled OCSP response / a 100,000-entry CRL; \
            evaluate-cached-stapled / evaluate-cached-crl: the same on a cached path, revocation asked again), raw-c (the library's \
            own C verification from DER), signature-floor (two signature checks with imported keys), \
            handshake-tls13 / handshake-tls12 (full handshakes over in-memory pipes, trust decided by the \
            engine) and their -unverified baselines (the client accepts without deciding).
            """
    )

    @Option(name: .customLong("backend"), help: "A backend to measure (repeatable; default: all).")
    var backends: [String] = []

    @Option(name: .customLong("chain"), help: "rsa2048, p256, p384 or rsa4096 (repeatable; default: rsa2048 and p256).")
    var chains: [BenchChain] = []

    @Option(help: "Seconds to spend on each operation.")
    var seconds: Double = 1.0

    @Flag(help: "Print one JSON object (schemaVersion, the libraries measured, one result per operation) instead of the table.")
    var json = false

    @Option(help: "Measure each operation in this many runs (its --seconds split between them), to show the spread between runs.")
    var runs: Int = 3

    @Option(help: "Also write a bar chart of the results to this SVG file.")
    var svg: String?

    @Option(name: .customLong("operation"), help: .hidden)
    var operations: [BenchOperation] = []

    /// A fixed number of iterations instead of a duration, for instruction counting under
    /// `valgrind --tool=callgrind --toggle-collect='*BenchMeasuredLoop*fixed*'`.
    @Option(help: .hidden)
    var iterations: Int?

    /// Where to keep the minted chains between runs (hidden; for instruction counting).
    @Option(name: .customLong("fixtures"), help: .hidden)
    var fixtureDirectory: String?

    /// `evaluate-cold` also re-imports the anchors' keys on every iteration (the per-certificate key
    /// memo off as well), which `raw-c`'s prepared store never does (hidden; for the docs' table).
    @Flag(name: .customLong("cold-anchor-keys"), help: .hidden)
    var coldAnchorKeys = false

    /// With `--threads`, every thread evaluates its own chain against one anchor set holding all
    /// the threads' roots, as the connections of a server share the one `TrustAnchors` it keeps
    /// (hidden; for the scaling notes: the verified-chain cache of that set is then shared).
    @Flag(name: .customLong("shared-anchors"), help: .hidden)
    var sharedAnchors = false

    @Flag(help: "Report bytes per parsed certificate, imported key and cached verified chain, and the parse cache at its bound, instead of speeds.")
    var memory = false

    @Option(name: .customLong("threads"), help: """
        Run the evaluations (evaluate, evaluate-cold, evaluate-cached, evaluate-native) on this many \
        threads at once, each on a chain of its own, and report their total throughput and CPU time \
        (given as 1, one thread measured the same way, for comparison).
        """)
    var threadCount: Int?

    var threads: Int { threadCount ?? 1 }

    func validate() throws {
        guard seconds > 0, seconds.isFinite else { throw ValidationError("--seconds must be a positive number") }
        if let iterations, iterations <= 0 { throw ValidationError("--iterations must be positive") }
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be between 1 and 64") }
        guard (1...100).contains(runs) else { throw ValidationError("--runs must be between 1 and 100") }
        for name in backends where !TrustBackends.names.contains(name) {
            throw ValidationError("unknown backend '\(name)' (known: \(TrustBackends.names.joined(separator: ", ")))")
        }
    }

    func run() throws {
        let selectedBackends = try (backends.isEmpty ? TrustBackends.names : backends).map { try TrustBackends.named($0) }
        let selectedChains = chains.isEmpty ? BenchChain.defaults : chains
        let selectedOperations = operations.isEmpty ? BenchOperation.allCases : operations
        let progress = BenchProgress(enabled: true)

        // The system store, cold: read, parsed and indexed for the engine, once per process.
        let clock = ContinuousClock()
        let coldStart = clock.now
        let systemAnchors = TrustAnchors.system.prepareForEngine()
        let systemMillis = (clock.now - coldStart).seconds * 1000

        if memory {
            let restore = (VerifiedChainCache.isEnabled, VerificationKeyCache.isEnabled, VerificationKeyCache.keepsKeysWithCertificates)
            defer { (VerifiedChainCache.isEnabled, VerificationKeyCache.isEnabled, VerificationKeyCache.keepsKeysWithCertificates) = restore }
            var rows: [BenchMemory.Row] = []
            for chain in selectedChains {
                rows += try BenchMemory.measure(fixture: BenchFixture(chain, directory: fixtureDirectory), chain: chain, backends: selectedBackends)
            }
            if json {
                ToolJSON.print(BenchJSON.MemoryDocument(libraries: BenchJSON.libraries(selectedBackends), memory: rows.map(BenchJSON.MemoryRow.init)))
            } else {
                print(BenchMemory.table(rows))
            }
            return
        }

        var results: [BenchResult] = []
        let restoreParse = CertificateParseCache.isEnabled
        let restoreChains = VerifiedChainCache.isEnabled
        let restoreKeys = VerificationKeyCache.isEnabled
        let restoreKeptKeys = VerificationKeyCache.keepsKeysWithCertificates
        defer {
            CertificateParseCache.isEnabled = restoreParse
            VerifiedChainCache.isEnabled = restoreChains
            VerificationKeyCache.isEnabled = restoreKeys
            VerificationKeyCache.keepsKeysWithCertificates = restoreKeptKeys
        }

        var plan: [(backend: (any TrustBackend)?, chain: BenchChain, operation: BenchOperation)] = []
        var notApplicable: [String] = []
        for chain in selectedChains {
            if selectedOperations.contains(.parse) { plan.append((nil, chain, .parse)) }
            for backend in selectedBackends {
                for operation in selectedOperations where operation != .parse {
                    // mbedTLS 2.28 has no TLS 1.3: nothing to measure there.
                    if let version = operation.handshakeVersion {
                        guard let tls = backend as? any TLSBackend, tls.supportedTLSVersions.contains(version) else { continue }
                    }
                    // A role the backend does not play is not applicable, not a failure: the
                    // swift-crypto backend has no native verifier and no library C verifier.
                    guard operation.applies(to: backend) else {
                        notApplicable.append("\(backend.name) \(operation.rawValue)")
                        continue
                    }
                    // With --threads, only the evaluations run on several threads.
                    if threadCount != nil && !operation.runsOnThreads { continue }
                    plan.append((backend, chain, operation))
                }
            }
        }

        var fixtures: [BenchChain: BenchFixture] = [:]
        for (step, item) in plan.enumerated() {
            let fixture = try fixtures[item.chain] ?? BenchFixture(item.chain, directory: fixtureDirectory)
            fixtures[item.chain] = fixture
            let backendName = item.backend?.name ?? "core"
            progress.show(step: step + 1, of: plan.count, "\(backendName) \(item.chain.rawValue) \(item.operation.rawValue)")
            if threadCount != nil {
                // One chain per thread: thread 0 takes the run's chain, the others mint their own
                // (kept under the fixtures directory by thread number, when one is given).
                var all = [fixture]
                for index in 1..<threads {
                    all.append(try BenchFixture(item.chain, directory: fixtureDirectory.map { "\($0)/thread\(index)" }))
                }
                let shared: TrustAnchors? = sharedAnchors ? TrustAnchors.only(all.map(\.root)) : nil
                let bodies = try all.map { try $0.body(for: item.operation, backend: item.backend, coldAnchorKeys: coldAnchorKeys, anchors: shared) }
                let measured = BenchMeasuredLoop.parallel(bodies, seconds: seconds, iterations: iterations)
                results.append(BenchResult(
                    backend: backendName, chain: item.chain.rawValue, operation: item.operation.rawValue,
                    iterations: measured.iterations, seconds: measured.seconds, threads: threads,
                    cpuSeconds: measured.cpuSeconds))
                continue
            }
            let body = try fixture.body(for: item.operation, backend: item.backend, coldAnchorKeys: coldAnchorKeys)
            // `runs` runs, the time split between them: the spread between them says how far one
            // figure can be trusted.
            var perRun: [(iterations: Int, seconds: Double)] = []
            for _ in 0..<(iterations == nil ? runs : 1) {
                perRun.append(iterations.map { BenchMeasuredLoop.fixed(body, iterations: $0) }
                              ?? BenchMeasuredLoop.timed(body, seconds: seconds / Double(runs)))
            }
            var result = BenchResult(
                backend: backendName, chain: item.chain.rawValue, operation: item.operation.rawValue,
                iterations: perRun.map(\.iterations).reduce(0, +), seconds: perRun.map(\.seconds).reduce(0, +))
            result.runMicros = perRun.map { $0.seconds * 1e6 / Double(max($0.iterations, 1)) }
            results.append(result)
        }
        progress.finish()

        if json {
            ToolJSON.print(BenchJSON.Document(libraries: BenchJSON.libraries(selectedBackends), runs: iterations == nil ? runs : 1,
                                              systemStoreColdMicroseconds: Int64(systemMillis * 1000),
                                              results: BenchJSON.results(results)))
        } else if threadCount != nil {
            print(BenchReport.threadTable(results))
        } else {
            print(BenchReport.table(results))
            if !notApplicable.isEmpty {
                var seen = Set<String>()
                let listed = notApplicable.filter { seen.insert($0).inserted }
                print("not applicable (the backend does not play the role): " + listed.joined(separator: ", "))
            }
            print(String(format: "system store ready for the engine, cold: %.1f ms (%d anchors read, parsed and indexed, once per process)",
                         systemMillis, systemAnchors))
        }
        if let svg {
            let chart = BenchReport.svg(results)
            do {
                try Data(chart.utf8).write(to: URL(fileURLWithPath: svg))
            } catch {
                throw TLSTrustError(.invalidArgument, "cannot write \(svg): \(error.localizedDescription)")
            }
        }
    }
}

/// The chains `tlstrust-dev bench` can mint (every certificate of a chain has the same key type).
enum BenchChain: String, CaseIterable, ExpressibleByArgument {
    case rsa2048, p256, p384, rsa4096

    /// What runs when no `--chain` is given: the two chains of the earlier tables.
    static let defaults: [BenchChain] = [.rsa2048, .p256]

    var keyAlgorithm: TestKeyAlgorithm {
        switch self {
        case .rsa2048, .rsa4096: .rsa2048
        case .p256: .ecdsaP256
        case .p384: .ecdsaP384
        }
    }

    /// The exact key type of every certificate of the chain.
    var keyType: TestKeyType {
        switch self {
        case .rsa2048: .rsa(bits: 2048)
        case .rsa4096: .rsa(bits: 4096)
        case .p256: .ecdsa(.p256)
        case .p384: .ecdsa(.p384)
        }
    }
}

/// The measured operations; the raw values are the contract's operation names.
enum BenchOperation: String, CaseIterable, ExpressibleByArgument {
    case parse
    case evaluate
    case evaluateNative = "evaluate-native"
    case evaluateCached = "evaluate-cached"
    case evaluateCold = "evaluate-cold"
    case evaluateStapled = "evaluate-stapled"
    case evaluateCRL = "evaluate-crl"
    case evaluateCachedStapled = "evaluate-cached-stapled"
    case evaluateCachedCRL = "evaluate-cached-crl"
    case evaluateCT = "evaluate-ct"
    case evaluateCachedCT = "evaluate-cached-ct"
    case rawC = "raw-c"
    case signatureFloor = "signature-floor"
    case handshakeTLS13 = "handshake-tls13"
    case handshakeTLS12 = "handshake-tls12"
    case handshakeTLS13Unverified = "handshake-tls13-unverified"
    case handshakeTLS12Unverified = "handshake-tls12-unverified"

    /// The TLS version a handshake operation negotiates.
    var handshakeVersion: TLSVersion? {
        switch self {
        case .handshakeTLS13, .handshakeTLS13Unverified: .tls13
        case .handshakeTLS12, .handshakeTLS12Unverified: .tls12
        default: nil
        }
    }

    /// Whether `backend` plays the role the operation measures: `evaluate-native` needs a
    /// ``NativeTrustVerifier``, `raw-c` and `signature-floor` the library's raw benchmark
    /// (`RawVerificationBenchmarking`). Handshakes are filtered by TLS version where planned.
    func applies(to backend: any TrustBackend) -> Bool {
        switch self {
        case .evaluateNative: backend is any NativeTrustVerifier
        case .rawC, .signatureFloor: backend is any RawVerificationBenchmarking
        default: true
        }
    }

    /// Whether `--threads` runs the operation on several threads (the evaluations).
    var runsOnThreads: Bool {
        switch self {
        case .evaluate, .evaluateCold, .evaluateCached, .evaluateNative: true
        default: false
        }
    }

    /// Whether a handshake operation lets the engine decide.
    var isVerifiedHandshake: Bool { self == .handshakeTLS13 || self == .handshakeTLS12 }
}

/// One chain minted for the run, and the closures that measure each operation on it.
struct BenchFixture {
    static let host = "www.example.com"
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate
    let presentedDER: [[UInt8]]
    let anchors: TrustAnchors
    /// The minted hierarchy, keys included (nil when the chains were read back from a directory):
    /// the handshakes need the server's key.
    let hierarchy: TestHierarchy?
    /// A good OCSP response about the leaf, signed by the intermediate (`evaluate-stapled`).
    let stapledOCSPResponse: [UInt8]?
    /// The intermediate's CRL of 100,000 entries, not listing the leaf (`evaluate-crl`).
    let crl: CertificateRevocationList?
    /// Apple's CT policy over two fresh logs, custom anchors included, and a TLS SCT list of one
    /// SCT from each over the leaf (`evaluate-ct`).
    let transparency: (policy: CertificateTransparencyPolicy, tlsSCTList: [UInt8])

    /// Mints a fresh hierarchy; with `directory`, reuses the one saved there by an earlier run
    /// (or saves the new one), so that runs compared instruction by instruction see the same bytes.
    init(_ chain: BenchChain, directory: String? = nil) throws {
        let names = ["root", "intermediate", "leaf"]
        let files = names.map { "\(directory ?? "")/\(chain.rawValue)-\($0).der" }
        let revocationFiles = ["ocsp", "crl"].map { "\(directory ?? "")/\(chain.rawValue)-\($0).der" }
        var revocation: [[UInt8]] = []
        var ders: [[UInt8]]
        var minted: TestHierarchy?
        if directory != nil, let saved = Optional(files.compactMap { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } }),
           saved.count == 3 {
            ders = saved
            revocation = revocationFiles.compactMap { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } }
        } else {
            let keyType = chain.keyType
            let h = try TestHierarchy.make(keyAlgorithm: chain.keyAlgorithm, leafDNSNames: [Self.host],
                                           customizeRoot: { $0.keyType = keyType },
                                           customizeIntermediate: { $0.keyType = keyType },
                                           customizeLeaf: { $0.keyType = keyType })
            ders = [h.root.der, h.intermediate.der, h.leaf.der]
            minted = h
            var crl = try CRLBuilder(issuer: h.intermediate)
            crl.syntheticEntryCount = 100_000
            revocation = [try TestPKI.ocspResponse(for: h.leaf, issuer: h.intermediate), try crl.build()]
            if let directory {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for (file, der) in zip(files + revocationFiles, ders + revocation) { try Data(der).write(to: URL(fileURLWithPath: file)) }
            }
        }
        root = try Certificate(derEncoded: ders[0])
        intermediate = try Certificate(derEncoded: ders[1])
        leaf = try Certificate(derEncoded: ders[2])
        presentedDER = [ders[2], ders[1]]
        anchors = TrustAnchors.only([root])
        hierarchy = minted
        stapledOCSPResponse = revocation.count == 2 ? revocation[0] : nil
        crl = revocation.count == 2 ? try CertificateRevocationList(derEncoded: revocation[1]) : nil
        let logs = [try TestCTLog(operator: "Operator A"), try TestCTLog(operator: "Operator B")]
        transparency = (
            CertificateTransparencyPolicy(logList: try CertificateTransparencyLogList(logs: logs.map(\.log), timestamp: Date()),
                                          rules: .apple, appliesToCustomAnchors: true),
            SCTListEncoding.list(try logs.map { try $0.sct(forCertificate: ders[2]) }))
    }

    /// The work of one iteration of `operation`, after checking once that it succeeds (a benchmark
    /// of a refused chain would measure the wrong thing).
    func body(for operation: BenchOperation, backend: (any TrustBackend)?, coldAnchorKeys: Bool = false, anchors sharedAnchors: TrustAnchors? = nil) throws -> () -> Bool {
        let der = presentedDER
        let anchors = sharedAnchors ?? self.anchors
        let transparency = self.transparency
        func evaluation(_ engine: TrustEngine, backend: any TrustBackend, stapled: [UInt8]? = nil,
                        crl: CertificateRevocationList? = nil, ct: Bool = false) -> () -> Bool {
            {
                guard let chain = try? der.map({ try Certificate(derEncoded: $0) }) else { return false }
                var trust = Trust(certificates: chain, policies: [.ssl(hostname: Self.host)], anchors: anchors)
                if stapled != nil || crl != nil {
                    trust.revocation = RevocationPolicy(mode: .hard, scope: .leafOnly)
                    trust.stapledOCSPResponses = stapled.map { [$0] } ?? []
                    trust.crls = crl.map { [$0] } ?? []
                }
                if ct {
                    trust.certificateTransparency = transparency.policy
                    trust.signedCertificateTimestampList = transparency.tlsSCTList
                }
                return trust.evaluation(by: engine, using: backend).isTrusted
            }
        }
        let body: () -> Bool
        // Keys are imported once per process and kept (as a running program does) unless the
        // operation says otherwise; only `evaluate-cold` imports them again.
        VerificationKeyCache.isEnabled = true
        VerificationKeyCache.keepsKeysWithCertificates = true
        switch (operation, backend) {
        case (.parse, _):
            CertificateParseCache.isEnabled = false
            body = { (try? der.map { try Certificate(derEncoded: $0) })?.count == der.count }
        case (.evaluate, let backend?):
            CertificateParseCache.isEnabled = false
            VerifiedChainCache.isEnabled = false
            body = evaluation(.core, backend: backend)
        case (.evaluateCold, let backend?):
            CertificateParseCache.isEnabled = false
            VerifiedChainCache.isEnabled = false
            VerificationKeyCache.isEnabled = false
            // The presented certificates are parsed afresh, so their keys are imported afresh; the
            // anchors' keys stay with the prepared anchors unless asked otherwise.
            VerificationKeyCache.keepsKeysWithCertificates = !coldAnchorKeys
            body = evaluation(.core, backend: backend)
        case (.evaluateNative, let backend?):
            CertificateParseCache.isEnabled = false
            VerifiedChainCache.isEnabled = false
            body = evaluation(.native, backend: backend)
        case (.evaluateStapled, let backend?), (.evaluateCRL, let backend?),
             (.evaluateCachedStapled, let backend?), (.evaluateCachedCRL, let backend?):
            guard let stapledOCSPResponse, let crl else {
                throw TLSTrustError(.unsupported, "\(operation.rawValue): the saved fixtures hold no OCSP response or CRL (unsupported)")
            }
            // Uncached: the path is built and its signatures checked each time. Cached: the path
            // comes from the verified-chain cache and only its revocation is asked again.
            let cached = operation == .evaluateCachedStapled || operation == .evaluateCachedCRL
            CertificateParseCache.isEnabled = cached
            VerifiedChainCache.isEnabled = cached
            body = operation == .evaluateStapled || operation == .evaluateCachedStapled
                ? evaluation(.core, backend: backend, stapled: stapledOCSPResponse)
                : evaluation(.core, backend: backend, crl: crl)
        case (.evaluateCT, let backend?), (.evaluateCachedCT, let backend?):
            // Uncached: every iteration parses the chain afresh, so the SCT results kept with the
            // leaf are new and each SCT's signature is verified. Cached: the leaf from the parse
            // cache keeps them.
            let cached = operation == .evaluateCachedCT
            CertificateParseCache.isEnabled = cached
            VerifiedChainCache.isEnabled = cached
            body = evaluation(.core, backend: backend, ct: true)
        case (.evaluateCached, let backend?):
            CertificateParseCache.isEnabled = true
            VerifiedChainCache.isEnabled = true
            body = evaluation(.core, backend: backend)
        case (.rawC, let backend?), (.signatureFloor, let backend?):
            guard let raw = try backend.makeRawVerificationBenchmark(
                leaf: leaf, intermediates: [intermediate], anchor: root, hostname: Self.host)
            else { throw TLSTrustError(.unsupported, "\(backend.name) offers no raw verification benchmark") }
            body = operation == .rawC ? { raw.verifyFromDER() } : { raw.verifySignatures() }
        case (.handshakeTLS13, let backend?), (.handshakeTLS12, let backend?),
             (.handshakeTLS13Unverified, let backend?), (.handshakeTLS12Unverified, let backend?):
            guard let tls = backend as? any TLSBackend, let hierarchy, let version = operation.handshakeVersion else {
                throw TLSTrustError(.unsupported, "\(backend.name) \(operation.rawValue): no TLS or no keys for the chain (unsupported)")
            }
            CertificateParseCache.isEnabled = true
            VerifiedChainCache.isEnabled = true
            let fixture = try HandshakeFixture(backend: tls, version: version, hierarchy: hierarchy, host: Self.host)
            let verified = operation.isVerifiedHandshake
            body = { (try? AsyncBridge.run { try await fixture.handshake(verified: verified) }) ?? false }
        case (_, nil):
            throw TLSTrustError(.invalidArgument, "\(operation.rawValue) needs a backend")
        }
        // Once for the answer, once more to warm what a running program has warm (anchor stores).
        guard body(), body() else {
            throw TLSTrustError(.backendFailure, "\(backend?.name ?? "core") \(operation.rawValue): the fresh chain was not accepted")
        }
        return body
    }
}

/// The measured loops. A type of its own so that callgrind can count instructions inside it only
/// (`--toggle-collect='*BenchMeasuredLoop*fixed*'`): the PKI minting and set-up stay out of the count.
enum BenchMeasuredLoop {
    /// Runs `body` in batches until `seconds` have passed.
    static func timed(_ body: () -> Bool, seconds: Double) -> (iterations: Int, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        var iterations = 0
        var batch = 1
        var elapsed = 0.0
        while elapsed < seconds {
            for _ in 0..<batch { BenchSink.consume(body()) }
            iterations += batch
            elapsed = (clock.now - start).seconds
            if elapsed < seconds / 20 { batch *= 2 }
        }
        return (iterations, elapsed)
    }

    /// Runs each body on a thread of its own, all started together, for `seconds` (or `iterations`
    /// each); the total iterations over the wall time of the slowest thread, and the CPU time the
    /// threads used (`CLOCK_THREAD_CPUTIME_ID`): CPU time well under threads × wall time means the
    /// threads waited (for a lock, or for a core other processes held).
    static func parallel(_ bodies: [() -> Bool], seconds: Double, iterations: Int?) -> (iterations: Int, seconds: Double, cpuSeconds: Double) {
        final class Shared: @unchecked Sendable {  // written by each thread in its own slot, read after join
            var iterations: [Int]
            var cpu: [Double]
            let start: DispatchSemaphore
            let done = DispatchGroup()
            init(_ n: Int) { iterations = Array(repeating: 0, count: n); cpu = Array(repeating: 0, count: n); start = DispatchSemaphore(value: 0) }
        }
        let shared = Shared(bodies.count)
        for (index, body) in bodies.enumerated() {
            shared.done.enter()
            let unchecked = UncheckedBody(body)
            let thread = Thread {
                shared.start.wait()
                let cpuStart = threadCPUSeconds()
                if let iterations {
                    for _ in 0..<iterations { BenchSink.consume(unchecked.body()) }
                    shared.iterations[index] = iterations
                } else {
                    shared.iterations[index] = timed(unchecked.body, seconds: seconds).iterations
                }
                shared.cpu[index] = threadCPUSeconds() - cpuStart
                shared.done.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in bodies { shared.start.signal() }
        shared.done.wait()
        return (shared.iterations.reduce(0, +), (clock.now - start).seconds, shared.cpu.reduce(0, +))
    }

    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A measured body handed to another thread (each body is used by one thread only).
    private struct UncheckedBody: @unchecked Sendable {
        let body: () -> Bool
        init(_ body: @escaping () -> Bool) { self.body = body }
    }

    /// Runs `body` exactly `iterations` times.
    @inline(never)
    static func fixed(_ body: () -> Bool, iterations: Int) -> (iterations: Int, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<iterations { BenchSink.consume(body()) }
        return (iterations, (clock.now - start).seconds)
    }
}

/// Keeps the optimiser from discarding a measured result.
enum BenchSink {
    @inline(never)
    static func consume(_ value: Bool) { if !value { failures += 1 } }
    nonisolated(unsafe) static var failures = 0
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// One measured operation.
struct BenchResult {
    let backend: String
    let chain: String
    let operation: String
    let iterations: Int
    let seconds: Double
    /// Threads that ran the operation together (`--threads`), each on its own chain.
    var threads = 1
    /// CPU time the threads used, when more than one ran.
    var cpuSeconds: Double? = nil

    var opsPerSecond: Double { Double(iterations) / seconds }
    var microsPerOp: Double { seconds * 1e6 / Double(iterations) }

    /// µs per operation of each run (one run with `--threads` or `--iterations`).
    var runMicros: [Double] = []

    /// Half the range of the runs' µs per operation, in % of their mean; nil with one run.
    var spreadPercent: Double? {
        guard runMicros.count > 1, let low = runMicros.min(), let high = runMicros.max() else { return nil }
        let mean = runMicros.reduce(0, +) / Double(runMicros.count)
        return mean > 0 ? (high - low) / 2 / mean * 100 : nil
    }
}

/// A one-line progress display on standard error while the benchmark runs (never on standard
/// output, which holds only the table or the JSON document).
struct BenchProgress {
    let enabled: Bool
    let isTerminal = isatty(STDERR_FILENO) != 0

    func show(step: Int, of total: Int, _ what: String) {
        guard enabled else { return }
        let line = "[\(step)/\(total)] \(what)"
        write(isTerminal ? "\r\u{1B}[K" + line : line + "\n")
    }

    func finish() {
        if enabled && isTerminal { write("\r\u{1B}[K") }
    }

    private func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
