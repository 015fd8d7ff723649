import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The system store is read again when its files change, and every cache built from the old
/// contents — prepared backend stores, the engine's anchor index, verified chains — goes with it.
@Suite("System trust store: reloading")
struct SystemTrustStoreReloadTests {
    /// Two unrelated self-signed CAs, `prefix CA A` and `prefix CA B`: what an update adds and removes.
    static func twoCAs(_ prefix: String) throws -> (TestCertificate, TestCertificate) {
        (try TestPKI.issue(.certificateAuthority(commonName: "\(prefix) CA A")), try TestPKI.issue(.certificateAuthority(commonName: "\(prefix) CA B")))
    }

    /// Runs `body` with a store read from one bundle file that holds `certificates`, which `body`
    /// may write again (as update-ca-certificates does).
    static func withBundle(_ certificates: [TestCertificate], _ body: (_ store: SystemTrustStore, _ bundle: URL) throws -> Void) throws {
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("ca-certificates.crt")
            try TestPKI.writePEM(certificates, to: bundle)
            try body(SystemTrustStore(files: [bundle.path]), bundle)
        }
    }

    @Test("reload() picks up an added and a removed CA; an unchanged store keeps its generation")
    func explicitReload() throws {
        let (a, b) = try Self.twoCAs("Store")
        try Self.withBundle([a]) { store, bundle in
            #expect(store.certificates() == [a.certificate])
            #expect(store.generation == 0 && store.status.anchorCount == 1)
            #expect(store.reload() == false)
            try TestPKI.writePEM([a, b], to: bundle)   // update-ca-certificates adds B
            #expect(store.reload() == true)
            #expect(store.certificates() == [a.certificate, b.certificate] && store.generation == 1)
            try TestPKI.writePEM([b], to: bundle)      // and removes A
            #expect(store.reload() == true)
            #expect(store.certificates() == [b.certificate] && store.generation == 2)
            #expect(store.status.description.contains("1 anchor"))
        }
    }

    @Test("a CA removed from the store stops being trusted, caches notwithstanding", arguments: TestBackends.names)
    func removedCAIsDistrusted(backend: String) throws {
        let pki = try TestHierarchy.make()
        let other = try TestPKI.issue(.certificateAuthority(commonName: "Unrelated CA"))
        try Self.withBundle([other, pki.root]) { store, bundle in
            let anchors = TrustAnchors([], includingSystemStore: true, systemStore: store)
            let trust = Trust(certificates: pki.chain.certificates, anchors: anchors)
            let engine = TestBackends.named(backend)
            // Twice: the second answer may come from the verified-chain cache.
            #expect(trust.evaluate(using: engine).isTrusted)
            #expect(trust.evaluate(using: engine).isTrusted)
            try TestPKI.writePEM([other], to: bundle)
            #expect(store.reload())
            let after = trust.evaluate(using: engine)
            #expect(!after.isTrusted, "\(after)")
            #expect(after.failures.first?.code == .unknownIssuer, "\(after)")
        }
    }

    @Test("without reload(), a change is seen once the check interval has passed")
    func intervalCheck() throws {
        let (a, b) = try Self.twoCAs("Interval")
        try Self.withBundle([a]) { store, bundle in
            #expect(store.certificates() == [a.certificate])
            try TestPKI.writePEM([b], to: bundle)
            // Within the (default, 60 s) interval the store is not checked again.
            #expect(store.certificates() == [a.certificate])
            let restore = setTemporarily(\SystemTrustStore.Type.checkInterval, to: .zero)
            defer { restore() }
            #expect(store.certificates() == [b.certificate])
        }
    }

    @Test("the public suffix list's status is reported")
    func publicSuffixListStatus() {
        #expect(PublicSuffixListStatus.path.hasSuffix("public_suffix_list.dat"))
        #expect(PublicSuffixListStatus.isLoaded == FileManager.default.fileExists(atPath: PublicSuffixListStatus.path))
    }
}
