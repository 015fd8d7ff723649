import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The engine against itself across backends, and against each library's own verifier.
///
/// Over a catalogue of minted cases: the engine's verdict (and primary code) must be the same on
/// every backend — a hard failure otherwise, since the engine owns every rule. The native
/// verifiers may differ from the engine, but only where `knownNativeDeviations` says so, with a
/// reason; a listed deviation that no longer occurs fails too, so the table stays true.
@Suite("Engine: differential against the native verifiers")
struct EngineDifferentialTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable () throws -> Trust
        var testDescription: String { name }
    }

    /// Where a library's own verifier reaches another verdict than the engine, by case and backend,
    /// read from the "Native deviations from the engine" table of `docs/backends.md`, so that the
    /// documentation is the one list and cannot drift from what the libraries do.
    static let knownNativeDeviations: [String: [String: String]] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/backends.md")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var table: [String: [String: String]] = [:]
        var inTable = false
        for line in text.split(separator: "\n") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.first == "native deviation" { inTable = true; continue }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { if !table.isEmpty { break } else { continue } }
            guard cells.count == 3, cells[0].hasPrefix("`") else { continue }
            table[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), default: [:]][cells[1]] = cells[2]
        }
        return table
    }()

    @Test func theNativeDeviationTableIsReadFromTheDocs() {
        #expect(Self.knownNativeDeviations.count >= 20, "docs/backends.md's native-deviation table was not found or is empty")
        #expect(Self.knownNativeDeviations.values.allSatisfy { $0.values.allSatisfy { !$0.isEmpty } }, "every deviation needs its reason")
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
            return engineTrust(pki.chain, anchors: pki.anchors, host: host)
        }
    }

    static func shapeCase(_ name: String, _ make: @escaping @Sendable () throws -> PathShape) -> Case {
        Case(name: name) {
            let shape = try make()
            return engineTrust(shape.chain, anchors: shape.anchors, host: shape.hostname)
        }
    }

    /// Ed25519 is left out: mbedTLS 2.28 cannot verify it at all (see `ed25519IsTrustedOrUnsupported`).
    static let catalogue: [Case] = TestScenario.Kind.allCases.filter { $0 != .validEd25519 }.map { kind in
        Case(name: "scenario.\(kind)") {
            let scenario = try TestScenario.make(kind)
            return engineTrust(scenario.chain, anchors: scenario.anchors, host: scenario.hostname)
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
            return engineTrust([leaf, pki.intermediate], anchors: pki.anchors, host: "www.example.com")
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
    ]

    @Test("engine verdicts agree across backends; native deviations are listed", arguments: catalogue)
    func differential(_ testCase: Case) throws {
        let trust = try testCase.make()
        guard engineVerdict(trust) != nil else { return }  // the hard failure is already recorded
        let listed = Self.knownNativeDeviations[testCase.name] ?? [:]
        for backend in TestBackends.all {
            // A native verifier that cannot be told the purpose (mbedTLS) is compared with the
            // engine on the same trust without one, rather than not at all.
            var compared = trust
            if !backend.capabilities.nativeVerifier.contains(.purpose) { compared.policies.append(.purpose(.any)) }
            let engine = EngineVerdict(compared.evaluate(using: backend))
            compared.engine = .native
            let evaluation = compared.evaluate(using: backend)
            let native = EngineVerdict(evaluation)
            let required = try compared.makeRequest(for: backend).requiredNativeFeatures
            if !required.isSubset(of: backend.capabilities.nativeVerifier) {
                // A declared capability gap (e.g. no IP host on mbedTLS): not a verdict, and never trust.
                #expect(native == .refused(.unsupported), "\(backend.name) native on \(testCase.name): \(evaluation)")
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
        let trust = engineTrust(scenario.chain, anchors: scenario.anchors, host: scenario.hostname)
        for backend in TestBackends.all {
            let verdict = EngineVerdict(trust.evaluate(using: backend))
            let canVerify = backend.capabilities.signatureSchemes.contains(.ed25519)
            #expect(verdict == (canVerify ? .trusted : .refused(.unsupported)), "\(backend.name): \(verdict)")
        }
    }

    @Test func everyListedDeviationNamesACaseAndABackendWithAReason() {
        let names = Set(Self.catalogue.map(\.name))
        let backends = Set(TestBackends.all.map(\.name))
        for (caseName, entries) in Self.knownNativeDeviations {
            #expect(names.contains(caseName), "unknown case \(caseName)")
            for (backend, reason) in entries {
                #expect(backends.contains(backend), "unknown backend \(backend) for \(caseName)")
                #expect(!reason.isEmpty, "no reason for \(caseName) on \(backend)")
            }
        }
        #expect(Set(Self.catalogue.map(\.name)).count == Self.catalogue.count, "case names must be unique")
    }
}
