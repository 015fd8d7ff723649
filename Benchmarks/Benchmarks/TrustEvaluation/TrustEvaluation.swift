import Benchmark
import Foundation
import TLSTrust
@_spi(Benchmarking) @_spi(Comparison) import TLSTrustCore
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustPKI
import TLSTrustPKIHandshake

/// The hot handshake path, per backend and chain: the peer's chain arrives as DER and is
/// evaluated against a long-lived anchor set. The same operations as `tlstrust-dev bench`, with
/// ordo-one/benchmark's percentiles and allocation counts:
///
/// - `parse/<chain>`: the core parses the presented chain (leaf + intermediate), parse cache off.
/// - `evaluate/<backend>/<chain>`: parse + engine evaluation from DER; nothing reused between
///   iterations but the prepared anchors (and library keys of CA certificates, as in a running app).
/// - `evaluate-native/<backend>/<chain>`: parse + the library's own verifier through TLSTrust.
/// - `evaluate-cached/<backend>/<chain>`: parse + evaluation of a chain verified before (parse
///   cache and verified-chain cache answer).
/// - `raw-c/<backend>/<chain>`: the library alone from DER (`RawVerificationBenchmark.verifyFromDER`).
/// - `signature-floor/<backend>/<chain>`: the chain's two signature checks with imported keys.
/// - `evaluate/<backend>/p256/system-store`, `prepare-anchors/<backend>/system-store`: against the
///   distribution's store plus the app's root, and the cold preparation of a native store.
/// - `evaluate-cached-pinned/<backend>/<chain>`: `evaluate-cached` plus an SPKI pin check
///   (`PublicKeysTrustEvaluator`), to see what pinning adds.
/// - `af-certificate-mode/<backend>/<chain>`: AFSecurityPolicy's certificate pinning mode, ported
///   (`SecurityPolicy(pinningMode: .certificate)`), caches on as in a running app.
/// - `core/spki-pin`: the pin of a key (SHA-256 + base64).
/// - `swift-certificates/<chain>`: swift-certificates' `Verifier` on the same chain, from DER.
/// - `handshake-tls13/<backend>/<chain>`, `handshake-tls12/…`: a full handshake over in-memory
///   pipes, both sides on the backend, the client deciding trust with the engine (verified-chain
///   cache warm); `…-unverified/…` the same with a handler that accepts without evaluating.
///
/// Fixtures are minted once per process, before measurement. The process-wide cache switches are
/// set inside each benchmark's closure, before its loop.
nonisolated(unsafe) let benchmarks: @Sendable () -> Void = {
    let backends: [any TrustBackend] = [OpenSSLTrustBackend(), GnuTLSTrustBackend(), MbedTLSTrustBackend()]
    let host = "www.example.com"
    let fixtures: [(label: String, hierarchy: TestHierarchy)] = [
        ("rsa2048", try! TestHierarchy.make(keyAlgorithm: .rsa2048)),
        ("p256", try! TestHierarchy.make(keyAlgorithm: .ecdsaP256)),
    ]

    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal, .cpuTotal],
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    func caches(parse: Bool, chains: Bool) {
        CertificateParseCache.isEnabled = parse
        VerifiedChainCache.isEnabled = chains
    }

    for fixture in fixtures {
        let der = fixture.hierarchy.chain.map(\.der)
        Benchmark("parse/\(fixture.label)") { benchmark in
            caches(parse: false, chains: false)
            for _ in benchmark.scaledIterations {
                blackHole(try! der.map { try Certificate(derEncoded: $0) })
            }
        }
    }

    for backend in backends {
        for fixture in fixtures {
            let h = fixture.hierarchy
            let der = h.chain.map(\.der)
            let anchors = TrustAnchors.only(h.anchors.certificates)
            /// The engine's evaluation, or (`native`) the library verifier's through the comparison API.
            func evaluate(native: Bool = false) -> Bool {
                let chain = der.map { try! Certificate(derEncoded: $0) }
                let trust = Trust(certificates: chain, policies: [.ssl(hostname: host)], anchors: anchors)
                return (native ? trust.evaluateNatively(using: backend) : trust.evaluate(using: backend)).isTrusted
            }
            precondition(evaluate() && evaluate(native: true), "\(backend.name) \(fixture.label): the fixture must be trusted")

            Benchmark("evaluate/\(backend.name)/\(fixture.label)") { benchmark in
                caches(parse: false, chains: false)
                for _ in benchmark.scaledIterations { blackHole(evaluate()) }
            }
            Benchmark("evaluate-native/\(backend.name)/\(fixture.label)") { benchmark in
                caches(parse: false, chains: false)
                for _ in benchmark.scaledIterations { blackHole(evaluate(native: true)) }
            }
            Benchmark("evaluate-cached/\(backend.name)/\(fixture.label)") { benchmark in
                caches(parse: true, chains: true)
                _ = evaluate()
                for _ in benchmark.scaledIterations { blackHole(evaluate()) }
            }

            // An SPKI pin check on top (Alamofire's PublicKeysTrustEvaluator shape): the
            // intermediate's key and a backup, in the steady state of evaluate-cached.
            let pinned = PublicKeysTrustEvaluator(keys: [h.intermediate.certificate.publicKey, h.root.certificate.publicKey])
            Benchmark("evaluate-cached-pinned/\(backend.name)/\(fixture.label)") { benchmark in
                caches(parse: true, chains: true)
                for _ in benchmark.scaledIterations {
                    let chain = der.map { try! Certificate(derEncoded: $0) }
                    let trust = Trust(certificates: chain, policies: [.ssl(hostname: host)], anchors: anchors)
                    blackHole(try? pinned.evaluate(trust, forHost: host, using: backend))
                }
            }

            // AFNetworking's certificate pinning mode, ported: the pinned certificates serve as
            // the anchors, and one must be in the server's chain (AFSecurityPolicy.certificate).
            // As in AFNetworking, the default evaluation against the system store runs first and
            // must pass unless invalid certificates are allowed: an app pinning its private CA sets
            // allowInvalidCertificates (the pinned certificates still decide; validatesDomainName stays on).
            var af = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [h.root.certificate, h.intermediate.certificate])
            af.allowInvalidCertificates = true
            precondition(af.evaluateServerTrust(Trust(certificates: der.map { try! Certificate(derEncoded: $0) }), forDomain: host, using: backend),
                         "\(backend.name) \(fixture.label): AFSecurityPolicy certificate mode")
            Benchmark("af-certificate-mode/\(backend.name)/\(fixture.label)") { benchmark in
                caches(parse: true, chains: true)
                for _ in benchmark.scaledIterations {
                    let chain = der.map { try! Certificate(derEncoded: $0) }
                    blackHole(af.evaluateServerTrust(Trust(certificates: chain), forDomain: host, using: backend))
                }
            }

            let raw = try! backend.makeRawVerificationBenchmark(
                leaf: h.leaf.certificate, intermediates: [h.intermediate.certificate],
                anchor: h.root.certificate, hostname: host)!
            precondition(raw.verifyFromDER() && raw.verifySignatures(), "\(backend.name) \(fixture.label): raw verification")
            Benchmark("raw-c/\(backend.name)/\(fixture.label)") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(raw.verifyFromDER()) }
            }
            Benchmark("signature-floor/\(backend.name)/\(fixture.label)") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(raw.verifySignatures()) }
            }
        }

        // Against the system store plus the app's root: the store is prepared once and cached.
        let h = fixtures[1].hierarchy
        let bundle = FileManager.default.temporaryDirectory.appendingPathComponent("tlstrust-bench-\(backend.name).pem")
        let system = SystemTrustStore.current.certificates().map(\.pemEncoded).joined() + h.root.pem
        try! Data(system.utf8).write(to: bundle)
        let systemAnchors = TrustAnchors([], includingSystemStore: true, systemStore: SystemTrustStore(files: [bundle.path]))
        let der = h.chain.map(\.der)
        Benchmark("evaluate/\(backend.name)/p256/system-store") { benchmark in
            caches(parse: false, chains: false)
            for _ in benchmark.scaledIterations {
                let chain = der.map { try! Certificate(derEncoded: $0) }
                let trust = Trust(certificates: chain, policies: [.ssl(hostname: host)], anchors: systemAnchors)
                blackHole(trust.evaluate(using: backend).isTrusted)
            }
        }

        // The cold path of the native verifier: turning the system store into a library store.
        if let verifier = backend as? any NativeTrustVerifier {
            let systemCertificates = SystemTrustStore.current.certificates()
            Benchmark("prepare-anchors/\(backend.name)/system-store", configuration: .init(maxIterations: 200)) { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(try! verifier.makeAnchorStore(systemCertificates))
                }
            }
        }
    }

    swiftCertificatesBenchmarks(fixtures, host: host)

    // Full handshakes over in-memory pipes, both sides on one backend: verified (the engine decides,
    // its verified-chain cache warm, as on a busy client) against accepted unverified (a handler that
    // trusts whatever it is shown: the library's handshake plus TLSTrust's plumbing, no decision).
    for backend in backends.compactMap({ $0 as? any TLSBackend }) {
        for fixture in fixtures {
            for version in TLSVersion.allCases where backend.supportedTLSVersions.contains(version) {
                let handshake = try! HandshakeFixture(backend: backend, version: version, hierarchy: fixture.hierarchy)
                let name = version == .tls13 ? "handshake-tls13" : "handshake-tls12"
                for verified in [true, false] {
                    Benchmark("\(name)\(verified ? "" : "-unverified")/\(backend.name)/\(fixture.label)",
                              configuration: .init(maxIterations: 5_000)) { benchmark in
                        caches(parse: true, chains: true)
                        for _ in benchmark.scaledIterations {
                            blackHole(try await handshake.handshake(verified: verified))
                        }
                    }
                }
            }
        }
    }

    let leaf = fixtures[1].hierarchy.leaf.certificate
    Benchmark("core/spki-pin") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(leaf.publicKey.pin)
        }
    }
}
