import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing
@testable import TLSTrustGnuTLS

/// The GnuTLS 3.7 backend on chains minted at test time.
@Suite("GnuTLS backend")
struct GnuTLSBackendTests {
    let backend = GnuTLSTrustBackend()
    static let host = "www.example.com"
    static let day: TimeInterval = 86400

    func evaluate(
        _ chain: [TestCertificate], anchors: [TestCertificate], policies: [TrustPolicy] = [.basicX509],
        at date: Date? = nil, using backend: (any TrustBackend)? = nil
    ) -> TrustEvaluation {
        var trust = Trust(certificates: chain.certificates, policies: policies, anchors: .only(anchors.certificates))
        trust.verificationDate = date
        return trust.evaluate(using: backend ?? self.backend)
    }

    func evaluate(_ scenario: TestScenario, at date: Date? = nil) -> TrustEvaluation {
        evaluate(scenario.chain, anchors: scenario.anchors, policies: scenario.policies, at: date)
    }

    func failure(_ evaluation: TrustEvaluation, _ code: TrustFailureCode) -> TrustFailure? {
        evaluation.failures.first { $0.code == code }
    }

    // MARK: The scenario catalogue

    /// Same minted certificates, same policies: the GnuTLS backend reaches OpenSSL's verdict, primary
    /// code and depth, and reports the same chain.
    @Test(arguments: TestScenario.Kind.allCases)
    func agreesWithTheOpenSSLBackend(_ kind: TestScenario.Kind) throws {
        let scenario = try TestScenario.make(kind)
        let gnutls = evaluate(scenario)
        let openssl = evaluate(scenario.chain, anchors: scenario.anchors, policies: scenario.policies, using: OpenSSLTrustBackend())
        #expect(gnutls.isTrusted == openssl.isTrusted, "\(kind): gnutls \(gnutls.failures), openssl \(openssl.failures)")
        #expect(gnutls.primaryFailure?.code == openssl.primaryFailure?.code, "\(kind): gnutls \(gnutls.failures), openssl \(openssl.failures)")
        #expect(gnutls.primaryFailure?.certificateIndex == openssl.primaryFailure?.certificateIndex, "\(kind): gnutls \(gnutls.failures), openssl \(openssl.failures)")
        #expect(gnutls.chain == openssl.chain, "\(kind)")
        #expect(Set(gnutls.failures.map(\.code)) == Set(openssl.failures.map(\.code)), "\(kind): gnutls \(gnutls.failures), openssl \(openssl.failures)")
    }

    /// Variations beyond the catalogue, each evaluated on both backends with the same certificates.
    enum Variation: String, CaseIterable, Sendable {
        case trailingDotHost, upperCaseHost, wildcardBareDomain, commonNameWithoutSANs, commonNameBesideIPSAN
        case depthZero, depthOne, leafIsTheAnchor, selfSignedLeafIsTheAnchor, missingIntermediate
        case rootPresentedNotAnchor, expiredRootAnchor, serverOnlyLeafAsClient, intermediateClientOnlyEKU
        case anchorClientOnlyEKU, intermediateWithoutCertSign, intermediateWithoutKeyUsage, anyEKULeaf
        case leafKeyUsageCertSignOnly, dottedNameConstraint, excludedSubtree, commonNameUnderConstraint
        case ipLeafUnderDNSConstraint, rsaChain, expiredEverything, notYetValidIntermediate
        case leafIssuedByAnchorDirectly, anchorWithoutBasicConstraints, duplicateIntermediates
        // The rest of the conformance catalogue (Tests/TLSTrustConformanceTests).
        case noCommonNameFallbackWhenDNSNamesExist, ipLiteralIsNotMatchedAgainstDNSNames, ipv6LiteralMismatch
        case noHostNameChecksNoName, longChainWithinDepth, longChainBeyondDepth, longChainIntermediatesShuffled
        case validChainJudgedBeforeItsValidity, validChainJudgedAfterItsExpiry, expiredLeafJudgedWhileItWasValid
        case clientAuthLeafForClientPurpose, clientAuthLeafForAnyPurpose, basicPolicyChecksNoPurpose
        case anchoredAtAnotherRoot, systemStoreHoldingTheRoot, customAnchorsExcludeTheSystemStore
        case customAnchorsPlusTheSystemStore
        case wildcardAgainstIDNLabel, selfSignedAnchorWithoutBasicConstraints, partialAnchorWithoutBasicConstraints
    }

    static let storeDirectory: TemporaryDirectory = try! TemporaryDirectory(prefix: "tlstrust-gnutls-store")

    /// A bundle file standing in for the system trust store.
    static func systemStore(_ anchors: [TestCertificate]) throws -> SystemTrustStore {
        let url = storeDirectory.file("store-\(UUID().uuidString).pem")
        try TestPKI.writePEM(anchors, to: url)
        return SystemTrustStore(files: [url.path])
    }

    /// Where GnuTLS refuses what OpenSSL accepts, and why (mirrored in docs/backends.md (GnuTLS section)).
    static let documentedDifferences: [Variation: (TrustFailureCode, String)] = [
        .commonNameUnderConstraint: (.nameConstraintsViolated, "GnuTLS holds a SAN-less leaf's CN to DNS name constraints even when it is not a host name"),
        .partialAnchorWithoutBasicConstraints: (.notCertificateAuthority, "GnuTLS tolerates a missing basicConstraints only on a self-signed anchor"),
    ]

    @Test(arguments: Variation.allCases)
    func agreesWithTheOpenSSLBackendOnVariations(_ variation: Variation) throws {
        var chain: [TestCertificate]
        var anchors: [TestCertificate]
        var policies: [TrustPolicy] = [.ssl(hostname: Self.host)]
        var date: Date?
        func hierarchy(_ make: () throws -> TestHierarchy = { try TestHierarchy.make() }) rethrows -> TestHierarchy {
            let h = try make()
            chain = h.chain
            anchors = h.anchors
            return h
        }
        chain = []
        anchors = []
        var store: TrustAnchors?
        switch variation {
        case .trailingDotHost:
            _ = try hierarchy()
            policies = [.ssl(hostname: "www.example.com.")]
        case .upperCaseHost:
            _ = try hierarchy()
            policies = [.ssl(hostname: "WWW.Example.COM")]
        case .wildcardBareDomain:
            _ = try hierarchy { try TestHierarchy.make(leafDNSNames: ["*.example.com"]) }
            policies = [.ssl(hostname: "example.com")]
        case .commonNameWithoutSANs:
            _ = try hierarchy { try TestHierarchy.make(leafDNSNames: [], customizeLeaf: { $0.commonName = Self.host }) }
        case .commonNameBesideIPSAN:
            _ = try hierarchy {
                try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["10.0.0.1"], customizeLeaf: { $0.commonName = Self.host })
            }
        case .depthZero:
            _ = try hierarchy()
            policies.append(.maximumChainDepth(0))
        case .depthOne:
            _ = try hierarchy()
            policies.append(.maximumChainDepth(1))
        case .leafIsTheAnchor:
            let h = try hierarchy()
            chain = [h.leaf]
            anchors = [h.leaf]
        case .selfSignedLeafIsTheAnchor:
            let leaf = try TestPKI.issue(.leaf(commonName: Self.host, dnsNames: [Self.host]))
            chain = [leaf]
            anchors = [leaf]
        case .missingIntermediate:
            let h = try hierarchy()
            chain = [h.leaf]
        case .rootPresentedNotAnchor:
            let h = try hierarchy()
            chain = h.chain + [h.root]
            anchors = [try TestHierarchy.make().root]
        case .expiredRootAnchor:
            _ = try hierarchy {
                try TestHierarchy.make(customizeRoot: {
                    $0.notBefore = Date(timeIntervalSinceNow: -90 * Self.day)
                    $0.notAfter = Date(timeIntervalSinceNow: -Self.day)
                })
            }
        case .serverOnlyLeafAsClient:
            _ = try hierarchy { try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.serverAuth] }) }
            policies = [.basicX509, .purpose(.clientAuth)]
        case .intermediateClientOnlyEKU:
            _ = try hierarchy { try TestHierarchy.make(customizeIntermediate: { $0.extendedKeyUsage = [.clientAuth] }) }
        case .anchorClientOnlyEKU:
            _ = try hierarchy { try TestHierarchy.make(customizeRoot: { $0.extendedKeyUsage = [.clientAuth] }) }
        case .intermediateWithoutCertSign:
            _ = try hierarchy { try TestHierarchy.make(customizeIntermediate: { $0.keyUsage = [.digitalSignature] }) }
        case .intermediateWithoutKeyUsage:
            _ = try hierarchy { try TestHierarchy.make(customizeIntermediate: { $0.keyUsage = [] }) }
        case .anyEKULeaf:
            _ = try hierarchy { try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.any] }) }
        case .leafKeyUsageCertSignOnly:
            _ = try hierarchy { try TestHierarchy.make(customizeLeaf: { $0.keyUsage = [.keyCertSign] }) }
        case .dottedNameConstraint:
            _ = try hierarchy {
                try TestHierarchy.make(leafDNSNames: ["example.com"], customizeIntermediate: { $0.permittedDNSSubtrees = [".example.com"] })
            }
            policies = [.basicX509]
        case .excludedSubtree:
            _ = try hierarchy {
                try TestHierarchy.make(leafDNSNames: ["www.bad.example.com"], customizeIntermediate: {
                    $0.permittedDNSSubtrees = ["example.com"]
                    $0.excludedDNSSubtrees = ["bad.example.com"]
                })
            }
            policies = [.basicX509]
        case .commonNameUnderConstraint:
            _ = try hierarchy {
                try TestHierarchy.make(leafDNSNames: [], customizeIntermediate: { $0.permittedDNSSubtrees = ["example.com"] },
                                       customizeLeaf: { $0.commonName = "TLSTrust Test Leaf" })
            }
            policies = [.basicX509]
        case .ipLeafUnderDNSConstraint:
            _ = try hierarchy {
                try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["10.0.0.1"],
                                       customizeIntermediate: { $0.permittedDNSSubtrees = ["example.com"] })
            }
            policies = [.ssl(hostname: "10.0.0.1")]
        case .rsaChain:
            _ = try hierarchy { try TestHierarchy.make(keyAlgorithm: .rsa2048) }
        case .expiredEverything:
            _ = try hierarchy()
            date = Date(timeIntervalSinceNow: 4000 * Self.day)
        case .notYetValidIntermediate:
            _ = try hierarchy { try TestHierarchy.make(customizeIntermediate: { $0.notBefore = Date(timeIntervalSinceNow: Self.day) }) }
        case .leafIssuedByAnchorDirectly:
            let h = try hierarchy()
            let leaf = try TestPKI.issue(.leaf(commonName: Self.host, dnsNames: [Self.host]), issuer: h.root)
            chain = [leaf, h.intermediate]
        case .anchorWithoutBasicConstraints:
            _ = try hierarchy { try TestHierarchy.make(customizeRoot: { $0.isCA = nil }) }
        case .duplicateIntermediates:
            let h = try hierarchy()
            chain = [h.leaf, h.intermediate, h.intermediate, h.leaf]
        case .noCommonNameFallbackWhenDNSNamesExist:
            _ = try hierarchy { try TestHierarchy.make(customizeLeaf: { $0.commonName = "cn-only.example.com" }) }
            policies = [.ssl(hostname: "cn-only.example.com")]
        case .ipLiteralIsNotMatchedAgainstDNSNames:
            _ = try hierarchy { try TestHierarchy.make(leafDNSNames: ["127.0.0.1"]) }
            policies = [.ssl(hostname: "127.0.0.1")]
        case .ipv6LiteralMismatch:
            _ = try hierarchy { try TestHierarchy.make(leafIPAddresses: ["2001:db8::1"]) }
            policies = [.ssl(hostname: "2001:db8::2")]
        case .noHostNameChecksNoName:
            _ = try hierarchy()
            policies = [.ssl()]
        case .longChainWithinDepth, .longChainBeyondDepth, .longChainIntermediatesShuffled:
            let long = try TestScenario.longChain()
            chain = long.chain
            anchors = long.anchors
            policies = long.policies
            switch variation {
            case .longChainWithinDepth: policies.append(.maximumChainDepth(5))
            case .longChainBeyondDepth: policies.append(.maximumChainDepth(4))
            default: chain = [long.chain[0]] + [3, 1, 5, 2, 4].map { long.chain[$0] }
            }
        case .validChainJudgedBeforeItsValidity:
            _ = try hierarchy()
            date = Date(timeIntervalSinceNow: -2 * Self.day)
        case .validChainJudgedAfterItsExpiry:
            _ = try hierarchy()
            date = Date(timeIntervalSinceNow: 400 * Self.day)
        case .expiredLeafJudgedWhileItWasValid:
            _ = try hierarchy {
                try TestHierarchy.make(
                    customizeRoot: { $0.notBefore = Date(timeIntervalSinceNow: -90 * Self.day) },
                    customizeIntermediate: { $0.notBefore = Date(timeIntervalSinceNow: -90 * Self.day) },
                    customizeLeaf: {
                        $0.notBefore = Date(timeIntervalSinceNow: -30 * Self.day)
                        $0.notAfter = Date(timeIntervalSinceNow: -Self.day)
                    })
            }
            date = Date(timeIntervalSinceNow: -10 * Self.day)
        case .clientAuthLeafForClientPurpose, .clientAuthLeafForAnyPurpose:
            let s = try TestScenario.clientAuthOnlyLeaf()
            chain = s.chain
            anchors = s.anchors
            policies = variation == .clientAuthLeafForClientPurpose ? [.ssl(server: false)] : [.ssl(hostname: Self.host), .purpose(.any)]
        case .basicPolicyChecksNoPurpose:
            _ = try hierarchy { try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] }) }
            policies = [.basicX509]
        case .anchoredAtAnotherRoot:
            _ = try hierarchy()
            anchors = [try TestHierarchy.make().root]
        case .systemStoreHoldingTheRoot:
            let h = try hierarchy()
            store = TrustAnchors([], includingSystemStore: true, systemStore: try Self.systemStore(h.anchors))
        case .customAnchorsExcludeTheSystemStore, .customAnchorsPlusTheSystemStore:
            let h = try hierarchy()
            let other = try TestHierarchy.make().root
            store = TrustAnchors([other.certificate], includingSystemStore: variation == .customAnchorsPlusTheSystemStore,
                                 systemStore: try Self.systemStore(h.anchors))
        case .wildcardAgainstIDNLabel:
            _ = try hierarchy { try TestHierarchy.make(leafDNSNames: ["*.example.com"]) }
            policies = [.ssl(hostname: "xn--bcher-kva.example.com")]
        case .selfSignedAnchorWithoutBasicConstraints:
            _ = try hierarchy {
                try TestHierarchy.make(customizeRoot: {
                    $0.isCA = nil
                    $0.keyUsage = [.keyCertSign, .cRLSign]
                })
            }
        case .partialAnchorWithoutBasicConstraints:
            let h = try hierarchy {
                try TestHierarchy.make(customizeIntermediate: {
                    $0.isCA = nil
                    $0.keyUsage = [.keyCertSign, .cRLSign]
                })
            }
            chain = [h.leaf]
            anchors = [h.intermediate]
        }
        func run(_ backend: any TrustBackend) -> TrustEvaluation {
            var trust = Trust(certificates: chain.certificates, policies: policies, anchors: store ?? .only(anchors.certificates))
            trust.verificationDate = date
            return trust.evaluate(using: backend)
        }
        let gnutls = run(backend)
        let openssl = run(OpenSSLTrustBackend())
        let both = "gnutls \(gnutls.failures), openssl \(openssl.failures)"
        if let (code, _) = Self.documentedDifferences[variation] {
            // GnuTLS is stricter here, and its verdict is kept (docs/backends.md (GnuTLS section)).
            #expect(openssl.isTrusted, "\(variation): \(both)")
            #expect(!gnutls.isTrusted)
            #expect(gnutls.primaryFailure?.code == code, "\(variation): \(both)")
            #expect(gnutls.primaryFailure?.certificateIndex == (code == .notCertificateAuthority ? 1 : 0), "\(variation): \(both)")
            return
        }
        #expect(gnutls.result == openssl.result, "\(variation): \(both)")
        #expect(gnutls.isTrusted == openssl.isTrusted, "\(variation): \(both)")
        #expect(gnutls.primaryFailure?.code == openssl.primaryFailure?.code, "\(variation): \(both)")
        #expect(gnutls.primaryFailure?.certificateIndex == openssl.primaryFailure?.certificateIndex, "\(variation): \(both)")
        #expect(gnutls.chain == openssl.chain, "\(variation): chain of \(gnutls.chain.count) vs \(openssl.chain.count)")
        #expect(Set(gnutls.failures.map(\.code)) == Set(openssl.failures.map(\.code)), "\(variation): \(both)")
    }

    @Test(arguments: TestKeyAlgorithm.allCases)
    func validChainIsBuiltFromTheGivenCertificates(_ algorithm: TestKeyAlgorithm) throws {
        let pki = try TestHierarchy.make(keyAlgorithm: algorithm)
        let evaluation = evaluate(pki.chain, anchors: pki.anchors, policies: [.ssl(hostname: Self.host)])
        #expect(evaluation.isTrusted, "\(algorithm): \(evaluation.failures)")
        #expect(evaluation.chain == [pki.leaf.certificate, pki.intermediate.certificate, pki.root.certificate])
        #expect(evaluation.result == .proceed)
    }

    @Test func failuresNameTheCertificateAndCarryGnuTLSStatusBits() throws {
        let expired = evaluate(try TestScenario.expiredIntermediate())
        let e = try #require(failure(expired, .expired))
        #expect(e.certificateIndex == 1)
        #expect(e.nativeCode == 0x400)  // GNUTLS_CERT_EXPIRED
        #expect(e.nativeDescription.hasPrefix("The certificate chain uses expired certificate."))
        #expect(expired.failures.filter { $0.code == .expired }.count == 1)

        let sha1 = evaluate(try TestScenario.sha1SignedLeaf())
        let w = try #require(sha1.primaryFailure)
        #expect(w.code == .weakAlgorithm && w.certificateIndex == 0 && w.nativeCode == 0x100)  // INSECURE_ALGORITHM
        #expect(sha1.failures.count == 1, "\(sha1.failures)")

        let badSignature = evaluate(try TestScenario.badSignature())
        #expect(badSignature.primaryFailure?.code == .badSignature)
        #expect(badSignature.primaryFailure?.certificateIndex == 0)
        #expect(badSignature.primaryFailure?.nativeCode == 0x800)  // SIGNATURE_FAILURE
        #expect(badSignature.chain.count == 3)

        let notCA = evaluate(try TestScenario.intermediateNotCA())
        #expect(notCA.primaryFailure?.code == .notCertificateAuthority)
        #expect(notCA.primaryFailure?.certificateIndex == 1)
        #expect(notCA.primaryFailure?.nativeCode == 0x80)  // SIGNER_NOT_CA
        #expect(failure(notCA, .unknownIssuer) == nil)

        let pathLength = evaluate(try TestScenario.pathLengthExceeded())
        #expect(pathLength.primaryFailure?.code == .pathLengthExceeded)
        #expect(pathLength.primaryFailure?.certificateIndex == 2)
        #expect(pathLength.chain.count == 4)

        let untrustedRoot = evaluate(try TestScenario.untrustedRoot())
        #expect(untrustedRoot.primaryFailure?.code == .untrustedRoot)
        #expect(untrustedRoot.primaryFailure?.certificateIndex == 2)
        #expect(untrustedRoot.primaryFailure?.nativeCode == 0x40)  // SIGNER_NOT_FOUND
        #expect(untrustedRoot.chain.count == 3)
        let selfSigned = evaluate(try TestScenario.selfSignedLeaf())
        #expect(selfSigned.primaryFailure?.code == .untrustedRoot)
        #expect(selfSigned.primaryFailure?.certificateIndex == 0)
        let unknown = evaluate(try TestScenario.unknownIssuer())
        #expect(unknown.primaryFailure?.code == .unknownIssuer)
        #expect(unknown.primaryFailure?.certificateIndex == 1)
        #expect(unknown.chain.count == 2)
        #expect(unknown.failures.count == 1, "\(unknown.failures)")
    }

    @Test func everyProblemIsReportedNotOnlyTheFirst() throws {
        let pki = try TestHierarchy.make(customizeLeaf: {
            $0.notBefore = Date(timeIntervalSinceNow: -30 * Self.day)
            $0.notAfter = Date(timeIntervalSinceNow: -Self.day)
            $0.extendedKeyUsage = [.clientAuth]
        })
        let evaluation = evaluate(pki.chain, anchors: pki.anchors, policies: [.ssl(hostname: "www.example.org")])
        #expect(Set(evaluation.failures.map(\.code)) == [.expired, .purposeNotAllowed, .hostnameMismatch])
        #expect(evaluation.failures.allSatisfy { $0.certificateIndex == 0 })
        #expect(evaluation.result == .recoverableTrustFailure)
    }

    @Test func keyUsageWithoutCertSignIsNotACertificateAuthority() throws {
        let pki = try TestHierarchy.make(customizeIntermediate: { $0.keyUsage = [.digitalSignature] })
        let evaluation = evaluate(pki.chain, anchors: pki.anchors)
        #expect(evaluation.primaryFailure?.code == .notCertificateAuthority)
        #expect(failure(evaluation, .invalidKeyUsage)?.certificateIndex == 1)
        #expect(failure(evaluation, .invalidKeyUsage)?.nativeCode == 0x10000)  // SIGNER_CONSTRAINTS_FAILURE
    }

    // MARK: Host names and IP addresses

    @Test func hostNamesFollowRFC6125() throws {
        let wildcard = try TestHierarchy.make(leafDNSNames: ["*.example.com"])
        #expect(evaluate(wildcard.chain, anchors: wildcard.anchors, policies: [.ssl(hostname: "WWW.EXAMPLE.COM")]).isTrusted)
        let deep = evaluate(wildcard.chain, anchors: wildcard.anchors, policies: [.ssl(hostname: "a.b.example.com")])
        #expect(deep.primaryFailure?.code == .hostnameMismatch)
        #expect(deep.primaryFailure?.certificateIndex == 0)
        #expect(deep.primaryFailure?.nativeCode == 0x4000)  // UNEXPECTED_OWNER
        #expect(evaluate(wildcard.chain, anchors: wildcard.anchors, policies: [.ssl(hostname: "example.com")])
            .primaryFailure?.code == .hostnameMismatch)

        // GnuTLS alone accepts a partial wildcard; the core's rule (whole left-most label) wins.
        let partial = try TestHierarchy.make(leafDNSNames: ["w*.example.com"])
        #expect(evaluate(partial.chain, anchors: partial.anchors, policies: [.ssl(hostname: "www.example.com")])
            .primaryFailure?.code == .hostnameMismatch)

        // An absolute name is the same host (GnuTLS alone would refuse the trailing dot).
        let plain = try TestHierarchy.make()
        #expect(evaluate(plain.chain, anchors: plain.anchors, policies: [.ssl(hostname: "www.example.com.")]).isTrusted)

        let tld = try TestHierarchy.make(leafDNSNames: ["*.com"])
        #expect(evaluate(tld.chain, anchors: tld.anchors, policies: [.ssl(hostname: "example.com")])
            .primaryFailure?.code == .hostnameMismatch)

        // No common-name fallback when DNS names exist.
        let cn = try TestHierarchy.make(customizeLeaf: { $0.commonName = "cn-only.example.com" })
        #expect(evaluate(cn.chain, anchors: cn.anchors, policies: [.ssl(hostname: "cn-only.example.com")])
            .primaryFailure?.code == .hostnameMismatch)
    }

    @Test func ipAddressesAreMatchedAgainstIPSANsOnly() throws {
        let v4 = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["192.0.2.7"])
        #expect(evaluate(v4.chain, anchors: v4.anchors, policies: [.ssl(hostname: "192.0.2.7")]).isTrusted)
        let other = evaluate(v4.chain, anchors: v4.anchors, policies: [.ssl(hostname: "192.0.2.8")])
        #expect(other.primaryFailure?.code == .ipAddressMismatch)
        #expect(other.primaryFailure?.nativeCode == 0x4000)

        let v6 = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["2001:db8::1"])
        #expect(evaluate(v6.chain, anchors: v6.anchors, policies: [.ssl(hostname: "2001:db8::1")]).isTrusted)
        #expect(evaluate(v6.chain, anchors: v6.anchors, policies: [.ssl(hostname: "[2001:db8::1]")]).isTrusted)
        #expect(evaluate(v6.chain, anchors: v6.anchors, policies: [.ssl(hostname: "2001:db8::2")])
            .primaryFailure?.code == .ipAddressMismatch)

        // An IP literal never matches a dNSName SAN or the CN that spell it.
        let dnsLiteral = try TestHierarchy.make(leafDNSNames: ["127.0.0.1"])
        #expect(evaluate(dnsLiteral.chain, anchors: dnsLiteral.anchors, policies: [.ssl(hostname: "127.0.0.1")])
            .primaryFailure?.code == .ipAddressMismatch)
    }

    @Test func aHostNameWithANulByteIsRefused() throws {
        let pki = try TestHierarchy.make()
        let evaluation = evaluate(pki.chain, anchors: pki.anchors, policies: [.ssl(hostname: "www.example.com\0.evil.org")])
        #expect(!evaluation.isTrusted)
        #expect(evaluation.primaryFailure?.code == .invalidPolicy)
    }

    // MARK: Purpose

    @Test func extendedKeyUsage() throws {
        let clientOnly = try TestScenario.clientAuthOnlyLeaf()
        #expect(evaluate(clientOnly.chain, anchors: clientOnly.anchors, policies: [.ssl(server: false)]).isTrusted)
        #expect(evaluate(clientOnly.chain, anchors: clientOnly.anchors, policies: [.purpose(.any)]).isTrusted)
        #expect(evaluate(clientOnly.chain, anchors: clientOnly.anchors, policies: [.basicX509]).isTrusted)
        let refused = evaluate(clientOnly)
        #expect(refused.primaryFailure?.code == .purposeNotAllowed)
        #expect(refused.primaryFailure?.nativeCode == 0x40000)  // PURPOSE_MISMATCH

        // anyExtendedKeyUsage does not stand in for serverAuth, as in OpenSSL (GnuTLS alone accepts it).
        let anyEKU = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.any] })
        #expect(evaluate(anyEKU.chain, anchors: anyEKU.anchors, policies: [.ssl(hostname: Self.host)])
            .primaryFailure?.code == .purposeNotAllowed)

        let noEKU = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = nil })
        #expect(evaluate(noEKU.chain, anchors: noEKU.anchors, policies: [.ssl(hostname: Self.host)]).isTrusted)

        // An intermediate's EKU constrains the chain (OpenSSL and GnuTLS agree).
        let constrained = try TestHierarchy.make(customizeIntermediate: { $0.extendedKeyUsage = [.clientAuth] })
        let viaCA = evaluate(constrained.chain, anchors: constrained.anchors, policies: [.ssl(hostname: Self.host)])
        #expect(viaCA.primaryFailure?.code == .purposeNotAllowed)
        #expect(viaCA.primaryFailure?.certificateIndex == 1)
        #expect(evaluate(constrained.chain, anchors: constrained.anchors, policies: [.ssl(server: false)]).isTrusted)
    }

    // MARK: Anchors

    /// GnuTLS's own sorting of an unordered chain gives up beyond 16 certificates; the Swift path
    /// builder hands it the path in order.
    @Test func longShuffledChainsBeyondGnuTLSsSortingLimit() throws {
        let long = try TestScenario.longChain(intermediates: 18)
        let shuffled = [long.chain[0]] + long.chain.dropFirst().reversed()
        let evaluation = evaluate(shuffled, anchors: long.anchors)
        #expect(evaluation.isTrusted, "\(evaluation.failures)")
        #expect(evaluation.chain.count == 20)
    }

    @Test func anchorStoreDeduplicatesAndRejectsForeignStores() throws {
        let pki = try TestHierarchy.make()
        let store = try #require(try backend.makeAnchorStore([pki.root.certificate, pki.root.certificate, pki.intermediate.certificate]) as? GnuTLSAnchorStore)
        #expect(store.certificates == [pki.root.certificate, pki.intermediate.certificate])
        #expect(store.index(of: pki.intermediate.certificate) == 1)

        let foreign = try OpenSSLTrustBackend().makeAnchorStore([pki.root.certificate])
        let request = TrustEvaluationRequest(
            leaf: pki.leaf.certificate, intermediates: [pki.intermediate.certificate], anchorStore: foreign,
            customAnchors: [pki.root.certificate], host: nil, purpose: .any, maximumIntermediates: nil, verificationDate: Date())
        let evaluation = backend.evaluate(request)
        #expect(evaluation.primaryFailure?.code == .internalError)
        #expect(!evaluation.isTrusted)
    }

    // MARK: Dates

    @Test func validityIsJudgedAtTheVerificationDate() throws {
        let pki = try TestHierarchy.make()
        let before = evaluate(pki.chain, anchors: pki.anchors, at: Date(timeIntervalSinceNow: -2 * Self.day))
        #expect(before.primaryFailure?.code == .notYetValid)
        #expect(Set(before.failures.filter { $0.code == .notYetValid }.compactMap(\.certificateIndex)) == [0, 1, 2])
        #expect(before.failures.first { $0.code == .notYetValid }?.nativeCode == 0x200)  // NOT_ACTIVATED

        let after = evaluate(pki.chain, anchors: pki.anchors, at: Date(timeIntervalSinceNow: 400 * Self.day))
        #expect(after.primaryFailure?.code == .expired)
        #expect(after.failures.filter { $0.code == .expired }.compactMap(\.certificateIndex) == [0])

        let expiredLeaf = try TestHierarchy.make(
            customizeRoot: { $0.notBefore = Date(timeIntervalSinceNow: -90 * Self.day) },
            customizeIntermediate: { $0.notBefore = Date(timeIntervalSinceNow: -90 * Self.day) },
            customizeLeaf: {
                $0.notBefore = Date(timeIntervalSinceNow: -30 * Self.day)
                $0.notAfter = Date(timeIntervalSinceNow: -Self.day)
            })
        #expect(evaluate(expiredLeaf.chain, anchors: expiredLeaf.anchors).primaryFailure?.code == .expired)
        #expect(evaluate(expiredLeaf.chain, anchors: expiredLeaf.anchors, at: Date(timeIntervalSinceNow: -10 * Self.day)).isTrusted)

        let expiredRoot = try TestHierarchy.make(customizeRoot: {
            $0.notBefore = Date(timeIntervalSinceNow: -90 * Self.day)
            $0.notAfter = Date(timeIntervalSinceNow: -Self.day)
        })
        let anchorExpired = evaluate(expiredRoot.chain, anchors: expiredRoot.anchors)
        #expect(anchorExpired.primaryFailure?.code == .expired)
        #expect(anchorExpired.primaryFailure?.certificateIndex == 2)
    }

    @Test func extremeDatesAndDepthsNeitherTrapNorTrust() throws {
        let pki = try TestHierarchy.make()
        #expect(evaluate(pki.chain, anchors: pki.anchors, at: .distantFuture).primaryFailure?.code == .expired)
        #expect(evaluate(pki.chain, anchors: pki.anchors, at: .distantPast).primaryFailure?.code == .notYetValid)
        #expect(evaluate(pki.chain, anchors: pki.anchors, policies: [.maximumChainDepth(.max)]).isTrusted)
    }

    /// OpenSSL's `X509_cmp_time` counts the notAfter second itself as expired, and the notBefore
    /// second as valid; so do we, on both backends' behalf.
    @Test func validityBoundariesFollowOpenSSL() throws {
        let pki = try TestHierarchy.make()
        let notAfter = pki.leaf.certificate.notValidAfter
        let notBefore = pki.leaf.certificate.notValidBefore
        for (date, trusted) in [(notAfter, false), (notAfter - 1, true), (notBefore, true), (notBefore - 1, false)] {
            let gnutls = evaluate(pki.chain, anchors: pki.anchors, at: date)
            let openssl = evaluate(pki.chain, anchors: pki.anchors, at: date, using: OpenSSLTrustBackend())
            #expect(gnutls.isTrusted == trusted, "\(date): \(gnutls.failures)")
            #expect(openssl.isTrusted == trusted, "OpenSSL at \(date): \(openssl.failures)")
        }
    }

    // MARK: Depth

    @Test func maximumDepthCountsIntermediates() throws {
        let long = try TestScenario.longChain(intermediates: 3)
        let tooLong = evaluate(long.chain, anchors: long.anchors, policies: [.maximumChainDepth(2)])
        #expect(tooLong.primaryFailure?.code == .chainTooLong)
        #expect(tooLong.primaryFailure?.certificateIndex == 3)
        #expect(failure(tooLong, .unknownIssuer) == nil, "\(tooLong.failures)")
        #expect(evaluate(long.chain, anchors: long.anchors, policies: [.maximumChainDepth(3)]).isTrusted)

        let pki = try TestHierarchy.make()
        let zero = evaluate(pki.chain, anchors: pki.anchors, policies: [.maximumChainDepth(0)])
        #expect(zero.primaryFailure?.code == .chainTooLong)
        #expect(zero.primaryFailure?.certificateIndex == 1)
        #expect(evaluate([pki.leaf], anchors: [pki.intermediate], policies: [.maximumChainDepth(0)]).isTrusted)
    }

    // MARK: Name constraints

    @Test func nameConstraints() throws {
        let violated = evaluate(try TestScenario.nameConstraints(leafDNSName: "www.example.org"))
        #expect(violated.primaryFailure?.code == .nameConstraintsViolated)
        #expect(violated.primaryFailure?.certificateIndex == 0)
        #expect(violated.primaryFailure?.nativeCode == 0x10000)

        let excluded = try TestHierarchy.make(leafDNSNames: ["www.bad.example.com"], customizeIntermediate: {
            $0.permittedDNSSubtrees = ["example.com"]
            $0.excludedDNSSubtrees = ["bad.example.com"]
        })
        #expect(evaluate(excluded.chain, anchors: excluded.anchors).primaryFailure?.code == .nameConstraintsViolated)

        // A leaf without dNSName SANs is checked by its CN.
        let cnOnly = try TestHierarchy.make(leafDNSNames: [], customizeIntermediate: {
            $0.permittedDNSSubtrees = ["example.com"]
        }, customizeLeaf: { $0.commonName = "www.example.org" })
        #expect(evaluate(cnOnly.chain, anchors: cnOnly.anchors).primaryFailure?.code == .nameConstraintsViolated)

        // The constraints apply whether the constrained CA is an intermediate or the anchor.
        #expect(evaluate(try TestScenario.nameConstraints(leafDNSName: "api.example.com")).isTrusted)
        let asAnchor = try TestScenario.nameConstraints(leafDNSName: "www.example.org")
        #expect(evaluate([asAnchor.leaf], anchors: [asAnchor.chain[1]]).primaryFailure?.code == .nameConstraintsViolated)

        // An intermediate below a constrained root is held to the constraints by its SANs, as OpenSSL does.
        let root = try TestPKI.issue({
            var p = TestHierarchy.rootProfile()
            p.permittedDNSSubtrees = ["example.com"]
            return p
        }())
        let sub = try TestPKI.issue({
            var p = TestHierarchy.intermediateProfile()
            p.dnsNames = ["ca.example.net"]
            return p
        }(), issuer: root)
        let leaf = try TestPKI.issue(.leaf(commonName: Self.host, dnsNames: [Self.host]), issuer: sub)
        let gnutls = evaluate([leaf, sub], anchors: [root])
        let openssl = evaluate([leaf, sub], anchors: [root], using: OpenSSLTrustBackend())
        #expect(gnutls.primaryFailure?.code == .nameConstraintsViolated)
        #expect(gnutls.primaryFailure?.certificateIndex == 1)
        #expect(gnutls.primaryFailure?.code == openssl.primaryFailure?.code)
        #expect(gnutls.primaryFailure?.certificateIndex == openssl.primaryFailure?.certificateIndex)
    }

    // MARK: Parsing and keys

    @Test func malformedDERIsRefused() throws {
        let der = try TestHierarchy.make().leaf.der
        for bad in [[], [0x30, 0x03, 0x02, 0x01, 0x01], Array(der.dropLast(10)), der + [0x00], Array(repeating: 0xFF, count: 64)] {
            #expect(throws: TLSTrustError(.malformedCertificate, "")) { try backend.parseCertificate(derEncoded: bad) }
        }
        #expect(try backend.parseCertificate(derEncoded: der).derEncoded == der)
    }

    @Test func identity() {
        #expect(backend.name == "gnutls")
        #expect(backend.libraryVersion.hasPrefix("GnuTLS 3."))
    }

    @Test func statusTextsAreGnuTLSsOwn() {
        #expect(GnuTLSVerifyErrors.text(GnuTLSVerifyErrors.signerNotFound) == "The certificate issuer is unknown.")
        #expect(GnuTLSVerifyErrors.text(GnuTLSVerifyErrors.expired) == "The certificate chain uses expired certificate.")
        #expect(GnuTLSVerifyErrors.fullText(0x42) == "The certificate is NOT trusted. The certificate issuer is unknown.")
        #expect(GnuTLSVerifyErrors.portableCode(forUnexplained: GnuTLSVerifyErrors.unexpectedOwner, host: HostIdentity("::1")) == .ipAddressMismatch)
    }
}
