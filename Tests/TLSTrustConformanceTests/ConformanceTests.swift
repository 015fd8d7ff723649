import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The backend-conformance suite: every case on every backend, asserting the verdict and the
/// primary portable failure code. Known, documented differences are in `KnownDifferences`.
@Suite("Backend conformance")
struct ConformanceTests {
    @Test("every case on every backend", arguments: TestBackends.names, ConformanceCase.all)
    func conformance(backendName: String, testCase: ConformanceCase) throws {
        let backend = TestBackends.named(backendName)
        let trust = try testCase.build()
        let evaluation = trust.evaluate(using: backend)
        let expected = KnownDifferences.expectation(for: testCase, backend: backendName)
        switch expected {
        case .trusted:
            #expect(evaluation.isTrusted, "\(backendName) \(testCase.name): \(evaluation)")
            #expect(evaluation.failures.isEmpty)
            #expect(evaluation.chain.first == trust.certificates.first)
            #expect(evaluation.chain.last.map { trust.anchors.allCertificates.contains($0) } == true,
                    "a trusted chain ends at an anchor")
        case .rejected(let code):
            #expect(!evaluation.isTrusted, "\(backendName) \(testCase.name) should be rejected with \(code)")
            #expect(evaluation.failures.first?.code == code,
                    "\(backendName) \(testCase.name): expected \(code), got \(evaluation.failures.map(\.description))")
            #expect(evaluation.result != .proceed && evaluation.result != .unspecified)
            #expect(evaluation.failures.allSatisfy { !$0.detail.isEmpty })
        }
    }

    @Test func theCatalogueHasAtLeastFortyDistinctCases() {
        #expect(ConformanceCase.all.count >= 40)
        #expect(Set(ConformanceCase.all.map(\.name)).count == ConformanceCase.all.count)
    }

    @Test("public key extraction agrees with the core", arguments: TestBackends.names, TestKeyAlgorithm.allCases)
    func publicKeyExtraction(backendName: String, algorithm: TestKeyAlgorithm) throws {
        let backend = TestBackends.named(backendName)
        let cert = try TestPKI.issue(.leaf(commonName: "key.example.com", keyAlgorithm: algorithm)).certificate
        let expected = KnownDifferences.unsupportedKeyAlgorithms[backendName]?.contains(algorithm) == true
        if expected {
            #expect(throws: TLSTrustError.self) { try backend.publicKey(of: cert) }
        } else {
            #expect(try backend.publicKey(of: cert) == cert.publicKey)
            #expect(try backend.parseCertificate(derEncoded: cert.derEncoded) == cert)
        }
    }

    @Test("malformed DER is refused by the backend", arguments: TestBackends.names)
    func malformedDER(backendName: String) throws {
        let backend = TestBackends.named(backendName)
        let der = try TestPKI.issue(.leaf(commonName: "m.example.com")).der
        for bad in [[], [0x30], Array(der.prefix(der.count / 2)), der + [0]] as [[UInt8]] {
            #expect(throws: TLSTrustError.self) { try backend.parseCertificate(derEncoded: bad) }
        }
    }

    @Test("concurrent evaluations with different dates do not interfere", arguments: TestBackends.names)
    func concurrentDates(backendName: String) async throws {
        let backend = TestBackends.named(backendName)
        let h = try TestHierarchy.make()
        let now = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "www.example.com")],
                        anchors: .only(h.anchors.certificates))
        let later = {
            var t = now
            t.verificationDate = Date(timeIntervalSinceNow: 400 * 86400)
            return t
        }()
        let outcomes = await withTaskGroup(of: (Bool, TrustEvaluation).self) { group in
            for i in 0..<200 {
                let even = i.isMultiple(of: 2)
                group.addTask { (even, (even ? now : later).evaluate(using: backend)) }
            }
            return await group.reduce(into: [(Bool, TrustEvaluation)]()) { $0.append($1) }
        }
        for (current, evaluation) in outcomes {
            #expect(evaluation.isTrusted == current)
            if !current { #expect(evaluation.failures.first?.code == .expired) }
        }
    }
}
