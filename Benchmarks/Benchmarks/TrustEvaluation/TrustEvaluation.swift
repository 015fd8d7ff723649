import Benchmark
import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTesting

/// The hot handshake path: a peer's chain arrives as DER, is parsed, and is evaluated against a
/// long-lived anchor set (the app's CA, or the ~140-certificate system store).
///
/// Fixtures are minted once per process, before measurement; anchor stores are prepared by a
/// warm-up evaluation, as they are in a running app after its first handshake.
nonisolated(unsafe) let benchmarks: @Sendable () -> Void = {
    let backends: [any TrustBackend] = [OpenSSLTrustBackend(), GnuTLSTrustBackend(), MbedTLSTrustBackend()]
    let host = "www.example.com"
    let fixtures: [(label: String, hierarchy: TestHierarchy)] = [
        ("ecdsa-p256", try! TestHierarchy.make(keyAlgorithm: .ecdsaP256)),
        ("rsa-2048", try! TestHierarchy.make(keyAlgorithm: .rsa2048)),
    ]

    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal, .cpuTotal],
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    for backend in backends {
        for fixture in fixtures {
            let h = fixture.hierarchy
            let chainDER = h.chain.map(\.der)
            let anchors = TrustAnchors.only(h.anchors.certificates)
            _ = Trust(certificates: h.chain.certificates, anchors: anchors).evaluate(using: backend)

            // Full per-handshake work: parse the presented DER, evaluate with host + purpose.
            Benchmark("evaluate/\(backend.name)/\(fixture.label)/app-ca") { benchmark in
                for _ in benchmark.scaledIterations {
                    let chain = chainDER.map { try! Certificate(derEncoded: $0) }
                    let trust = Trust(certificates: chain, policies: [.ssl(hostname: host)], anchors: anchors)
                    blackHole(trust.evaluate(using: backend).isTrusted)
                }
            }
        }

        // Against the system store plus the app's root: the store is prepared once and cached.
        let h = fixtures[0].hierarchy
        let bundle = FileManager.default.temporaryDirectory.appendingPathComponent("tlstrust-bench-\(backend.name).pem")
        let system = SystemTrustStore.current.certificates().map(\.pemEncoded).joined() + h.root.pem
        try! Data(system.utf8).write(to: bundle)
        let systemAnchors = TrustAnchors([], includingSystemStore: true, systemStore: SystemTrustStore(files: [bundle.path]))
        _ = Trust(certificates: h.chain.certificates, anchors: systemAnchors).evaluate(using: backend)
        Benchmark("evaluate/\(backend.name)/ecdsa-p256/system-store") { benchmark in
            for _ in benchmark.scaledIterations {
                let trust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: host)], anchors: systemAnchors)
                blackHole(trust.evaluate(using: backend).isTrusted)
            }
        }

        // A refused chain (wrong host) costs what a trusted one does, plus failure reporting.
        let refused = TrustAnchors.only(h.anchors.certificates)
        Benchmark("evaluate/\(backend.name)/ecdsa-p256/refused-wrong-host") { benchmark in
            for _ in benchmark.scaledIterations {
                let trust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "evil.example.net")], anchors: refused)
                blackHole(trust.evaluate(using: backend).isTrusted)
            }
        }

        // The cold path: preparing an anchor store from the whole system store.
        let systemCertificates = SystemTrustStore.current.certificates()
        Benchmark("prepare-anchors/\(backend.name)/system-store", configuration: .init(maxIterations: 200)) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try! backend.makeAnchorStore(systemCertificates))
            }
        }
    }

    // Core-only work on the hot path, backend independent.
    let leafDER = fixtures[0].hierarchy.leaf.der
    Benchmark("core/parse-certificate") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! Certificate(derEncoded: leafDER))
        }
    }
    let leaf = fixtures[0].hierarchy.leaf.certificate
    Benchmark("core/spki-pin") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(leaf.publicKey.pin)
        }
    }
}
