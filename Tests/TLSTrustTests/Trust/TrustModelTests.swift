import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

@Suite("Trust model")
struct TrustModelTests {
    let backend = OpenSSLTrustBackend()

    @Test func policiesResolveToOneRequest() throws {
        let h = try TestHierarchy.make()
        var trust = Trust(certificates: h.chain.certificates,
                          policies: [.ssl(hostname: "www.example.com"), .maximumChainDepth(3), .maximumChainDepth(1)])
        trust.anchors = .only(h.anchors.certificates)
        let request = try trust.makeRequest(for: backend)
        #expect(request.host == .dnsName("www.example.com"))
        #expect(request.purpose == .serverAuth)
        #expect(request.maximumIntermediates == 1)
        #expect(request.intermediates == [h.intermediate.certificate])

        trust.policies = [.ssl(server: false)]
        #expect(try trust.makeRequest(for: backend).purpose == .clientAuth)
        trust.policies = [.ssl(hostname: "www.example.com"), .purpose(.any)]
        #expect(try trust.makeRequest(for: backend).purpose == .any, "an explicit purpose overrides the SSL one")
        trust.policies = [.basicX509]
        #expect(try trust.makeRequest(for: backend).purpose == .any)
    }

    @Test func contradictoryPoliciesAreRefusedNotTrusted() throws {
        let h = try TestHierarchy.make()
        let trust = Trust(certificates: h.chain.certificates,
                          policies: [.ssl(hostname: "a.example.com"), .ssl(hostname: "b.example.com")],
                          anchors: .only(h.anchors.certificates))
        let evaluation = trust.evaluate(using: backend)
        #expect(!evaluation.isTrusted)
        #expect(evaluation.failures.first?.code == .invalidPolicy)
        #expect(evaluation.result == .recoverableTrustFailure)
    }

    @Test func anEmptyChainIsNeverTrusted() {
        let evaluation = Trust(certificates: []).evaluate(using: backend)
        #expect(!evaluation.isTrusted)
        #expect(evaluation.chain.isEmpty)
    }

    @Test func resultKindMirrorsSecTrustResultType() throws {
        let h = try TestHierarchy.make()
        var trust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "www.example.com")])
        trust.setAnchorCertificates(h.anchors.certificates)
        #expect(trust.evaluate(using: backend).result == .proceed)
        trust.policies = [.ssl(hostname: "other.example.com")]
        #expect(trust.evaluate(using: backend).result == .recoverableTrustFailure)
        // Trusted through the system store: a store that holds our root, as if installed system-wide.
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("bundle.pem")
            try TestPKI.writePEM(h.anchors, to: bundle)
            var systemTrust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "www.example.com")])
            systemTrust.anchors = TrustAnchors([], includingSystemStore: true, systemStore: SystemTrustStore(files: [bundle.path]))
            let evaluation = systemTrust.evaluate(using: backend)
            #expect(evaluation.isTrusted)
            #expect(evaluation.result == .unspecified)
        }
    }

    @Test func anchorsOnlyByDefaultAndSystemStoreOnRequest() throws {
        let h = try TestHierarchy.make()
        let other = try TestHierarchy.make()
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("bundle.pem")
            try TestPKI.writePEM(h.anchors, to: bundle)
            let store = SystemTrustStore(files: [bundle.path])
            var trust = Trust(certificates: h.chain.certificates)
            trust.anchors = TrustAnchors(other.anchors.certificates, systemStore: store)
            #expect(!trust.evaluate(using: backend).isTrusted, "setting anchors means only these")
            trust.anchors = TrustAnchors(other.anchors.certificates, includingSystemStore: true, systemStore: store)
            #expect(trust.evaluate(using: backend).isTrusted, "unless the system store is added back")
        }
    }

    @Test func registryFindsBackendsByNameAndRefusesUnknownOnes() throws {
        TrustBackends.register(backend)
        #expect(try TrustBackends.named("OpenSSL").name == "openssl")
        #expect(throws: TLSTrustError.self) { try TrustBackends.named("no-such-backend") }
        do {
            _ = try TrustBackends.named("no-such-backend")
        } catch let error as TLSTrustError {
            #expect(error.code == .unknownBackend)
            #expect(error.message.contains("openssl"))
        }
    }

    @Test func evaluationsRunConcurrentlyWithOneSharedAnchorSet() async throws {
        let h = try TestHierarchy.make()
        let expired = try TestScenario.make(.expiredLeaf)
        let anchors = TrustAnchors.only(h.anchors.certificates + expired.anchors.certificates)
        let good = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "www.example.com")], anchors: anchors)
        let bad = Trust(certificates: expired.chain.certificates, policies: expired.policies, anchors: anchors)
        let backend = self.backend
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for i in 0..<200 {
                group.addTask { i.isMultiple(of: 2) ? (true, good.evaluate(using: backend).isTrusted) : (false, bad.evaluate(using: backend).isTrusted) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.0 == $0.1 })
    }
}

@Suite("Anchor store caching")
struct AnchorCachingTests {
    @Test func systemStoreAnchorSetsShareOnePreparedStorePerLocation() throws {
        let backend = OpenSSLTrustBackend()
        try TemporaryDirectory.with { dir in
            let h = try TestHierarchy.make()
            let bundle = dir.appendingPathComponent("bundle.pem")
            try TestPKI.writePEM(h.anchors, to: bundle)
            let store = SystemTrustStore(files: [bundle.path])
            let first = try TrustAnchors([], includingSystemStore: true, systemStore: store).store(for: backend)
            let second = try TrustAnchors([], includingSystemStore: true, systemStore: store).store(for: backend)
            #expect(first === second, "a fresh system-store TrustAnchors must not rebuild the store")
            // Custom anchors are prepared per value.
            let a = try TrustAnchors.only(h.anchors.certificates).store(for: backend)
            let b = try TrustAnchors.only(h.anchors.certificates).store(for: backend)
            #expect(a !== b)
        }
    }
}
