import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The one differential suite: the same minted certificates evaluated on every backend, and by
/// each library's own verifier, against the differences `KnownDifferences` allows (Swift values,
/// each with its reason; `docs/backends.md` states them and `KnownDifferencesDocumentTests`
/// checks that it does).
///
/// - The conformance catalogue (`ConformanceCase.all`): the backends give one verdict and primary
///   portable code, or the difference is in `KnownDifferences.verdictDifferences` — and a listed
///   difference that no longer matches what a backend does fails too.
/// - The native catalogue (`nativeCatalogue`: every conformance scenario plus host-name,
///   name-constraint, key, path-building, web-PKI attack and CRL revocation shapes): the engine's verdict is the
///   same on every backend — a hard failure otherwise, since the engine owns every rule — and a
///   native verifier differs from it only where `KnownDifferences.nativeDeviations` says so, with
///   a reason; a listed deviation that no longer occurs fails, so the list stays true.
@Suite("Differential: one verdict across backends, and the native verifiers against the engine")
struct DifferentialTests {
    static func outcome(_ evaluation: TrustEvaluation) -> TestScenario.Expectation {
        evaluation.isTrusted ? .trusted : .rejected(evaluation.failures.first?.code ?? .internalError)
    }

    // MARK: Backends against each other, on the conformance catalogue

    @Test("backends agree on every case, or the difference is documented", arguments: ConformanceCase.all)
    func agreement(testCase: ConformanceCase) throws {
        let trust = try testCase.build()
        var outcomes: [String: TestScenario.Expectation] = [:]
        for backend in TestBackends.all {
            outcomes[backend.name] = Self.outcome(trust.evaluate(using: backend))
        }
        let listed = KnownDifferences.verdictDifferences[testCase.name]
        if Set(outcomes.values).count > 1 {
            #expect(listed != nil, "unlisted difference on \(testCase.name): \(outcomes)")
        }
        if let listed {
            for (backend, outcome) in outcomes {
                let verdict = listed.verdicts[backend]
                #expect(verdict == outcome,
                        "KnownDifferences says \(backend) gives \(verdict.map { "\($0)" } ?? "nothing") on \(testCase.name), it gives \(outcome)")
            }
        }
    }

    @Test func everyListedVerdictDifferenceNamesARealCaseEveryBackendAndAReason() {
        let names = Set(ConformanceCase.all.map(\.name))
        let backends = Set(TestBackends.names)
        for (name, difference) in KnownDifferences.verdictDifferences {
            #expect(names.contains(name), "KnownDifferences lists unknown case \(name)")
            #expect(Set(difference.verdicts.keys) == backends, "\(name): a verdict for every backend, and for no other")
            #expect(Set(difference.verdicts.values).count > 1, "\(name): a difference needs two verdicts")
            #expect(!difference.reason.isEmpty, "\(name): a difference needs its reason")
        }
    }

    // MARK: The native verifiers against the engine

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable () throws -> Trust
        var testDescription: String { name }
    }

    /// A trust for `chain`: the SSL server policy for `host` (nil: chain only), anchored at `anchors` only.
    static func trust(_ chain: [TestCertificate], anchors: [TestCertificate], host: String?) -> Trust {
        Trust(certificates: chain.certificates, policies: [.ssl(hostname: host)], anchors: .only(anchors.certificates))
    }

    /// The engine's one verdict on `trust` across every backend; records an issue (and returns
    /// nil) when the verdict depends on the backend.
    static func engineOutcome(_ trust: Trust, _ name: String) -> TestScenario.Expectation? {
        var outcomes: [String: TestScenario.Expectation] = [:]
        for backend in TestBackends.all { outcomes[backend.name] = outcome(trust.evaluate(using: backend)) }
        let distinct = Set(outcomes.values)
        #expect(distinct.count == 1, "the engine's verdict on \(name) depends on the backend: \(outcomes)")
        return distinct.count == 1 ? distinct.first : nil
    }

    static func hierarchyCase(
        _ name: String, host: String? = "www.example.com", leafDNSNames: [String] = ["www.example.com"],
        root: @escaping @Sendable (inout CertificateProfile) -> Void = { _ in },
        intermediate: @escaping @Sendable (inout CertificateProfile) -> Void = { _ in },
        leaf: @escaping @Sendable (inout CertificateProfile) -> Void = { _ in }
    ) -> Case {
        Case(name: name) {
            let pki = try TestHierarchy.make(leafDNSNames: leafDNSNames, customizeRoot: root,
                                             customizeIntermediate: intermediate, customizeLeaf: leaf)
            return trust(pki.chain, anchors: pki.anchors, host: host)
        }
    }

    static func shapeCase(_ name: String, _ make: @escaping @Sendable () throws -> PathShape) -> Case {
        Case(name: name) {
            let shape = try make()
            return trust(shape.chain, anchors: shape.anchors, host: shape.hostname)
        }
    }

    /// Ed25519 is left out: mbedTLS 2.28 cannot verify it at all (see `ed25519IsTrustedOrUnsupported`).
    static let nativeCatalogue: [Case] = TestScenario.Kind.allCases.filter { $0 != .validEd25519 }.map { kind in
        Case(name: "scenario.\(kind)") {
            let scenario = try TestScenario.make(kind)
            return trust(scenario.chain, anchors: scenario.anchors, host: scenario.hostname)
        }
    } + [
        hierarchyCase("host.trailingDotRequested", host: "www.example.com."),
        hierarchyCase("host.trailingDotPresented", leafDNSNames: ["www.example.com."]),
        hierarchyCase("host.kelvinSign", host: "kelvin.example.com", leafDNSNames: ["\u{212A}elvin.example.com"]),
        hierarchyCase("host.wildcardOverPublicSuffix", host: "example.co.uk", leafDNSNames: ["*.co.uk"]),
        hierarchyCase("host.partialWildcard", leafDNSNames: ["w*.example.com"]),
        hierarchyCase("host.ipInDNSName", host: "192.0.2.1", leafDNSNames: ["192.0.2.1"]),
        hierarchyCase("host.commonNameOnly", leafDNSNames: [], leaf: { $0.subject = .commonNameOnly("www.example.com") }),
        hierarchyCase("host.ipv4MappedSAN", host: "192.0.2.1", leafDNSNames: [], leaf: { $0.ipAddresses = ["::ffff:192.0.2.1"] }),
        hierarchyCase("nc.trailingDotBypass", host: nil, leafDNSNames: ["bad.example.com."],
                      intermediate: { $0.excludedDNSSubtrees = ["bad.example.com"] }),
        hierarchyCase("nc.kelvinPermitted", host: nil, leafDNSNames: ["\u{212A}elvin.example.com"],
                      intermediate: { $0.permittedDNSSubtrees = ["example.com"] }),
        hierarchyCase("nc.ipv4MappedUnderIPv4Permitted", host: nil, leafDNSNames: [],
                      intermediate: { $0.nameConstraints = TestNameConstraints(permitted: [.ipAddress("10.0.0.0/8")]) },
                      leaf: { $0.ipAddresses = ["::ffff:10.1.2.3"] }),
        hierarchyCase("nc.directoryNameUTF8Bypass", host: nil,
                      intermediate: {
                          $0.nameConstraints = TestNameConstraints(excluded: [.directoryName(
                              TestName([.country("US"), .organization("Evil Corp", as: .printableString)]))])
                      },
                      leaf: {
                          $0.subject = TestName([.country("US"), .organization("evil  corp", as: .utf8String),
                                                 .commonName("www.example.com")])
                      }),
        hierarchyCase("nc.rfc822Outside", host: nil, leafDNSNames: [],
                      intermediate: { $0.nameConstraints = TestNameConstraints(permitted: [.rfc822Name("example.com")]) },
                      leaf: { $0.alternativeNames = [.rfc822Name("user@evil.com")] }),
        hierarchyCase("nc.uriOutside", host: nil, leafDNSNames: [],
                      intermediate: { $0.nameConstraints = TestNameConstraints(permitted: [.uri(".example.com")]) },
                      leaf: { $0.alternativeNames = [.uri("https://www.evil.com/")] }),
        Case(name: "key.rsa2047Leaf") {
            let pki = try TestHierarchy.make()
            let leaf = try TestPKI.issue(.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]),
                                         subjectKey: TestPrivateKey.shared(.rsa(bits: 2047)), issuer: pki.intermediate)
            return trust([leaf, pki.intermediate], anchors: pki.anchors, host: "www.example.com")
        },
        hierarchyCase("key.p521Leaf", leaf: { $0.keyType = .ecdsa(.p521) }),
        hierarchyCase("aki.contradicting", leaf: { $0.authorityKeyIdentifierOverride = [UInt8](repeating: 0xA5, count: 20) }),
        hierarchyCase("webpki.caWithoutSKI", intermediate: { $0.omittedExtensions = [RawExtension.OID.subjectKeyIdentifier] }),
        hierarchyCase("webpki.leafWithoutAKI", leaf: { $0.omittedExtensions = [RawExtension.OID.authorityKeyIdentifier] }),
        hierarchyCase("webpki.caBasicConstraintsNotCritical", intermediate: { $0.basicConstraintsIsCritical = false }),
        hierarchyCase("webpki.caWithoutKeyCertSign", intermediate: { $0.keyUsage = [.digitalSignature, .cRLSign] }),
        hierarchyCase("webpki.leafIsCA", leaf: {
            $0.isCA = true
            $0.keyUsage = [.digitalSignature, .keyCertSign]
        }),
        hierarchyCase("webpki.unknownCriticalExtension", leaf: { $0.extensions = [.unknownCritical] }),
        hierarchyCase("webpki.emptyLeafSubject", leaf: { $0.subject = .empty }),
        shapeCase("path.deadEndCrossFirst") { try PathShape.deadEndCrossCertificateFirst(.unknownIssuer) },
        shapeCase("path.expiredCrossFirst") { try PathShape.deadEndCrossCertificateFirst(.expired) },
        shapeCase("path.cycle") { try PathShape.cycle(length: 2) },
        shapeCase("path.sameNamedRealLast") { try PathShape.sameNamedIntermediates(count: 4) },
    ] + revocationCatalogue

    @Test("engine verdicts agree across backends; native deviations are listed", arguments: nativeCatalogue)
    func native(_ testCase: Case) throws {
        let trust = try testCase.make()
        guard Self.engineOutcome(trust, testCase.name) != nil else { return }  // the hard failure is already recorded
        let listed = KnownDifferences.nativeDeviations[testCase.name] ?? [:]
        for backend in TestBackends.all {
            // A native verifier that cannot be told the purpose (mbedTLS) is compared with the
            // engine on the same trust without one, rather than not at all.
            var compared = trust
            if !backend.capabilities.nativeVerifier.contains(.purpose) { compared.policies.append(.purpose(.any)) }
            let engine = Self.outcome(compared.evaluate(using: backend))
            let evaluation = compared.evaluateNatively(using: backend)
            let native = Self.outcome(evaluation)
            let required = try compared.makeRequest(for: backend).requiredNativeFeatures
            if !required.isSubset(of: backend.capabilities.nativeVerifier) {
                // A declared capability gap (e.g. no IP host on mbedTLS): not a verdict, and never trust.
                #expect(native == .rejected(.unsupported), "\(backend.name) native on \(testCase.name): \(evaluation)")
                continue
            }
            if native == engine {
                #expect(listed[backend.name] == nil,
                        "stale entry: \(backend.name)'s native verifier now agrees with the engine (\(engine)) on \(testCase.name)")
            } else {
                #expect(listed[backend.name] != nil,
                        "unlisted deviation on \(testCase.name): engine \(engine), \(backend.name) native \(native) — \(evaluation)")
            }
        }
    }

    @Test func ed25519IsTrustedOrUnsupportedNeverAnotherVerdict() throws {
        let scenario = try TestScenario.validChain(.ed25519)
        let trust = Self.trust(scenario.chain, anchors: scenario.anchors, host: scenario.hostname)
        for backend in TestBackends.all {
            let verdict = Self.outcome(trust.evaluate(using: backend))
            let canVerify = backend.capabilities.signatureSchemes.contains(.ed25519)
            #expect(verdict == (canVerify ? .trusted : .rejected(.unsupported)), "\(backend.name): \(verdict)")
        }
    }

    @Test func everyListedDeviationNamesACaseAndABackendWithAReason() {
        let names = Set(Self.nativeCatalogue.map(\.name))
        let backends = Set(TestBackends.names)
        for (caseName, entries) in KnownDifferences.nativeDeviations {
            #expect(names.contains(caseName), "unknown case \(caseName)")
            for (backend, reason) in entries {
                #expect(backends.contains(backend), "unknown backend \(backend) for \(caseName)")
                #expect(!reason.isEmpty, "no reason for \(caseName) on \(backend)")
            }
        }
        #expect(names.count == Self.nativeCatalogue.count, "case names must be unique")
        #expect(Set(KnownDifferences.nativeDeviationList).count == KnownDifferences.nativeDeviationList.count,
                "each deviation is listed once")
        #expect(Set(KnownDifferences.nativeDeviationList.map { [$0.caseName, $0.backend] }).count == KnownDifferences.nativeDeviationList.count,
                "one reason per case and backend")
    }
}
