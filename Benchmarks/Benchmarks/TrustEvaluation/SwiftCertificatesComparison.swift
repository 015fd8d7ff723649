import Benchmark
import Foundation
import TLSTrustPKI
import X509

/// `swift-certificates/<chain>`: swift-certificates' `Verifier` (RFC5280Policy +
/// ServerIdentityPolicy) on the same chains, from DER, as `evaluate/…` measures TLSTrust — the
/// fastest pure-Swift verifier, as a yardstick. Its own file because its `Certificate`
/// would clash with TLSTrust's.
func swiftCertificatesBenchmarks(_ fixtures: [(label: String, hierarchy: TestHierarchy)], host: String) {
    for fixture in fixtures {
        let h = fixture.hierarchy
        let root = try! X509.Certificate(derEncoded: h.root.der)
        let leafDER = h.leaf.der, intermediateDER = h.intermediate.der
        @Sendable func verify() async -> Bool {
            let leaf = try! X509.Certificate(derEncoded: leafDER)
            let intermediate = try! X509.Certificate(derEncoded: intermediateDER)
            var verifier = Verifier(rootCertificates: CertificateStore([root])) {
                RFC5280Policy(validationTime: Date())
                ServerIdentityPolicy(serverHostname: host, serverIP: nil)
            }
            if case .validCertificate = await verifier.validate(leafCertificate: leaf, intermediates: CertificateStore([intermediate])) {
                return true
            }
            return false
        }
        Benchmark("swift-certificates/\(fixture.label)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(await verify()) }
        }
    }
}
