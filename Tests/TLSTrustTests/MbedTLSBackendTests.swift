import Foundation
import TLSTrust
import TLSTrustTesting
import Testing
@testable import TLSTrustMbedTLS

/// The mbedTLS 2.28 backend on chains minted at test time.
@Suite("MbedTLS backend")
struct MbedTLSBackendTests {
    let backend = MbedTLSTrustBackend()
    static let host = "www.example.com"
    static let day: TimeInterval = 86400

    func evaluate(
        _ chain: [TestCertificate], anchors: [TestCertificate], policies: [TrustPolicy] = [.basicX509], at date: Date? = nil
    ) -> TrustEvaluation {
        var trust = Trust(certificates: chain.certificates, policies: policies, anchors: .only(anchors.certificates))
        trust.verificationDate = date
        return trust.evaluate(using: backend)
    }

    func evaluate(_ scenario: TestScenario, at date: Date? = nil) -> TrustEvaluation {
        evaluate(scenario.chain, anchors: scenario.anchors, policies: scenario.policies, at: date)
    }

    func failure(_ evaluation: TrustEvaluation, _ code: TrustFailureCode) -> TrustFailure? {
        evaluation.failures.first { $0.code == code }
    }

    // MARK: The scenario catalogue

    @Test func validChainIsBuiltFromTheGivenCertificates() throws {
        for algorithm in [TestKeyAlgorithm.ecdsaP256, .ecdsaP384, .rsa2048] {
            let pki = try TestHierarchy.make(keyAlgorithm: algorithm)
            let evaluation = evaluate(pki.chain, anchors: pki.anchors, policies: [.ssl(hostname: Self.host)])
            #expect(evaluation.isTrusted, "\(algorithm): \(evaluation.failures)")
            #expect(evaluation.chain == [pki.leaf.certificate, pki.intermediate.certificate, pki.root.certificate])
            #expect(evaluation.failures.isEmpty)
        }
    }

    @Test func failuresNameTheCertificateAndCarryMbedTLSCodes() throws {
        let expired = evaluate(try TestScenario.expiredIntermediate())
        let e = try #require(failure(expired, .expired))
        #expect(e.certificateIndex == 1)
        #expect(e.nativeCode == 0x01)
        #expect(e.nativeDescription.contains("expired"))

        let sha1 = evaluate(try TestScenario.sha1SignedLeaf())
        let w = try #require(sha1.primaryFailure)
        #expect(w.code == .weakAlgorithm && w.certificateIndex == 0 && w.nativeCode == 0x4000)

        let badSignature = evaluate(try TestScenario.badSignature())
        #expect(badSignature.primaryFailure?.code == .badSignature)
        #expect(badSignature.primaryFailure?.certificateIndex == 0)
        #expect(badSignature.chain.count == 3)

        let notCA = evaluate(try TestScenario.intermediateNotCA())
        #expect(notCA.primaryFailure?.certificateIndex == 1)
        #expect(failure(notCA, .unknownIssuer) == nil, "mbedTLS's NOT_TRUSTED must be explained, not passed on")
        #expect(notCA.chain.count == 3)

        let pathLength = evaluate(try TestScenario.pathLengthExceeded())
        #expect(pathLength.primaryFailure?.certificateIndex == 2)
        #expect(pathLength.chain.count == 4)

        let untrustedRoot = evaluate(try TestScenario.untrustedRoot())
        #expect(untrustedRoot.primaryFailure?.certificateIndex == 2)
        let selfSigned = evaluate(try TestScenario.selfSignedLeaf())
        #expect(selfSigned.primaryFailure?.certificateIndex == 0)
        let unknown = evaluate(try TestScenario.unknownIssuer())
        #expect(unknown.primaryFailure?.certificateIndex == 1)
        #expect(unknown.chain.count == 2)
    }

    @Test func keyUsageWithoutCertSignIsNotACertificateAuthority() throws {
        // OpenSSL: "invalid CA certificate" and "key usage does not include certificate signing".
        let pki = try TestHierarchy.make(customizeIntermediate: { $0.keyUsage = [.digitalSignature] })
        let evaluation = evaluate(pki.chain, anchors: pki.anchors)
        #expect(evaluation.primaryFailure?.code == .notCertificateAuthority)
        #expect(failure(evaluation, .invalidKeyUsage)?.certificateIndex == 1)
    }

    /// Where mbedTLS refuses an issuer it stops; the backend verifies again from that issuer on,
    /// so that problems further up the chain are reported too.
    @Test func problemsAboveARefusedIssuerAreFound() throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile())
        let upper = try TestPKI.issue(.certificateAuthority(commonName: "Upper CA"), issuer: root)
        var lowerProfile = CertificateProfile.certificateAuthority(commonName: "Lower non-CA")
        lowerProfile.isCA = false
        lowerProfile.signatureDigest = .sha1
        let lower = try TestPKI.issue(lowerProfile, issuer: upper)
        let leaf = try TestPKI.issue(.leaf(commonName: Self.host, dnsNames: [Self.host]), issuer: lower)
        let evaluation = evaluate([leaf, upper, lower], anchors: [root], at: Date(timeIntervalSinceNow: 20 * 365 * Self.day))
        #expect(evaluation.chain == [leaf, lower, upper, root].certificates)
        #expect(evaluation.primaryFailure?.code == .weakAlgorithm)
        #expect(failure(evaluation, .weakAlgorithm)?.certificateIndex == 1)
        #expect(failure(evaluation, .notCertificateAuthority)?.certificateIndex == 1)
        let expired = Set(evaluation.failures.filter { $0.code == .expired }.compactMap(\.certificateIndex))
        #expect(expired == [0, 1, 2, 3])
        #expect(failure(evaluation, .unknownIssuer) == nil)
    }

    // MARK: Host names and IP addresses

    @Test func hostNamesFollowRFC6125WhereMbedTLSDoesNot() throws {
        // mbedTLS alone would let *.com match example.com.
        let tld = try TestHierarchy.make(leafDNSNames: ["*.com"])
        let star = evaluate(tld.chain, anchors: tld.anchors, policies: [.ssl(hostname: "example.com")])
        #expect(star.primaryFailure?.code == .hostnameMismatch)
        #expect(star.primaryFailure?.nativeCode == 0)

        let wildcard = try TestHierarchy.make(leafDNSNames: ["*.example.com"])
        // As in OpenSSL, a wildcard may match a host label that is an IDN A-label.
        #expect(evaluate(wildcard.chain, anchors: wildcard.anchors, policies: [.ssl(hostname: "xn--bcher-kva.example.com")])
            .isTrusted)
        #expect(evaluate(wildcard.chain, anchors: wildcard.anchors, policies: [.ssl(hostname: "WWW.EXAMPLE.COM")]).isTrusted)
        let deep = evaluate(wildcard.chain, anchors: wildcard.anchors, policies: [.ssl(hostname: "a.b.example.com")])
        #expect(deep.primaryFailure?.code == .hostnameMismatch)
        #expect(deep.primaryFailure?.nativeCode == 0x04)

        // A trailing dot names the same host.
        let plain = try TestHierarchy.make()
        #expect(evaluate(plain.chain, anchors: plain.anchors, policies: [.ssl(hostname: "www.example.com.")]).isTrusted)

        // No dNSName SAN (only an IP SAN): the CN does not count once any SAN is present (RFC 6125).
        let cnOnly = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["10.0.0.1"], customizeLeaf: {
            $0.commonName = Self.host
        })
        let viaCN = evaluate(cnOnly.chain, anchors: cnOnly.anchors, policies: [.ssl(hostname: Self.host)])
        #expect(viaCN.primaryFailure?.code == .hostnameMismatch, "\(viaCN.failures)")
    }

    @Test func ipAddressesAreMatchedAgainstIPSANsOnly() throws {
        let v4 = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["192.0.2.7"])
        #expect(evaluate(v4.chain, anchors: v4.anchors, policies: [.ssl(hostname: "192.0.2.7")]).isTrusted)
        let other = evaluate(v4.chain, anchors: v4.anchors, policies: [.ssl(hostname: "192.0.2.8")])
        #expect(other.primaryFailure?.code == .ipAddressMismatch)

        let v6 = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["2001:db8::1"])
        #expect(evaluate(v6.chain, anchors: v6.anchors, policies: [.ssl(hostname: "2001:db8::1")]).isTrusted)
        #expect(evaluate(v6.chain, anchors: v6.anchors, policies: [.ssl(hostname: "[2001:db8::1]")]).isTrusted)

        let dnsLiteral = try TestHierarchy.make(leafDNSNames: ["127.0.0.1"])
        #expect(evaluate(dnsLiteral.chain, anchors: dnsLiteral.anchors, policies: [.ssl(hostname: "127.0.0.1")])
            .primaryFailure?.code == .ipAddressMismatch)
    }

    // MARK: Purpose

    @Test func extendedKeyUsage() throws {
        let anyEKU = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.any] })
        let refused = evaluate(anyEKU.chain, anchors: anyEKU.anchors, policies: [.ssl(hostname: Self.host)])
        #expect(refused.primaryFailure?.code == .purposeNotAllowed)
        #expect(refused.primaryFailure?.nativeCode == 0x1000)

        let noEKU = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = nil })
        #expect(evaluate(noEKU.chain, anchors: noEKU.anchors, policies: [.ssl(hostname: Self.host)]).isTrusted)

        let serverOnly = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.serverAuth] })
        #expect(evaluate(serverOnly.chain, anchors: serverOnly.anchors, policies: [.ssl(server: false)])
            .primaryFailure?.code == .purposeNotAllowed)
        #expect(evaluate(serverOnly.chain, anchors: serverOnly.anchors, policies: [.purpose(.any)]).isTrusted)
    }

    /// As OpenSSL's SSL purposes: a CA's extendedKeyUsage, when present, must list the purpose too
    /// (the anchor's included), and the leaf's keyUsage must allow a TLS key use.
    @Test func purposeAlongTheChainAndLeafKeyUsage() throws {
        let clientCA = try TestHierarchy.make(customizeIntermediate: { $0.extendedKeyUsage = [.clientAuth] })
        let refused = evaluate(clientCA.chain, anchors: clientCA.anchors, policies: [.ssl(hostname: Self.host)])
        #expect(refused.primaryFailure?.code == .purposeNotAllowed)
        #expect(refused.primaryFailure?.certificateIndex == 1)
        #expect(evaluate(clientCA.chain, anchors: clientCA.anchors, policies: [.ssl(server: false)]).isTrusted)
        #expect(evaluate(clientCA.chain, anchors: clientCA.anchors).isTrusted)

        let clientRoot = try TestHierarchy.make(customizeRoot: { $0.extendedKeyUsage = [.clientAuth] })
        let root = evaluate(clientRoot.chain, anchors: clientRoot.anchors, policies: [.ssl(hostname: Self.host)])
        #expect(root.primaryFailure?.code == .purposeNotAllowed)
        #expect(root.primaryFailure?.certificateIndex == 2)

        let signingOnly = try TestHierarchy.make(customizeLeaf: { $0.keyUsage = [.nonRepudiation] })
        let ku = evaluate(signingOnly.chain, anchors: signingOnly.anchors, policies: [.ssl(hostname: Self.host)])
        #expect(ku.primaryFailure?.code == .purposeNotAllowed)
        #expect(ku.primaryFailure?.nativeCode == 0x800)
        #expect(evaluate(signingOnly.chain, anchors: signingOnly.anchors).isTrusted)
    }

    // MARK: Dates

    // (Anchors and path building are checked on every backend in TLSTrustConformanceTests/PathBuildingTests.swift.)

    @Test func validityIsJudgedAtTheVerificationDate() throws {
        let pki = try TestHierarchy.make()
        let before = evaluate(pki.chain, anchors: pki.anchors, at: Date(timeIntervalSinceNow: -2 * Self.day))
        #expect(before.primaryFailure?.code == .notYetValid)
        #expect(Set(before.failures.filter { $0.code == .notYetValid }.compactMap(\.certificateIndex)) == [0, 1, 2])

        #expect(evaluate(pki.chain, anchors: pki.anchors, at: .distantFuture).primaryFailure?.code == .expired)
        #expect(evaluate(pki.chain, anchors: pki.anchors, at: .distantPast).primaryFailure?.code == .notYetValid)

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

    // MARK: Depth

    @Test func maximumDepthCountsIntermediates() throws {
        let long = try TestScenario.longChain(intermediates: 3)
        let tooLong = evaluate(long.chain, anchors: long.anchors, policies: [.maximumChainDepth(2)])
        #expect(tooLong.primaryFailure?.code == .chainTooLong)
        #expect(tooLong.primaryFailure?.certificateIndex == 3)
        #expect(failure(tooLong, .unknownIssuer) == nil)
        #expect(evaluate(long.chain, anchors: long.anchors, policies: [.maximumChainDepth(3)]).isTrusted)

        let pki = try TestHierarchy.make()
        let zero = evaluate(pki.chain, anchors: pki.anchors, policies: [.maximumChainDepth(0)])
        #expect(zero.primaryFailure?.code == .chainTooLong)
        #expect(zero.primaryFailure?.certificateIndex == 1)
        #expect(evaluate([pki.leaf], anchors: [pki.intermediate], policies: [.maximumChainDepth(0)]).isTrusted)
    }

    @Test func mbedTLSVerifiesAtMostEightIntermediates() throws {
        let eight = try TestScenario.longChain(intermediates: 8)
        #expect(evaluate(eight).isTrusted)
        let nine = try TestScenario.longChain(intermediates: 9)
        let refused = evaluate(nine)
        #expect(refused.primaryFailure?.code == .chainTooLong)
        #expect(refused.primaryFailure?.nativeCode == -0x3000)
    }

    // MARK: Name constraints (enforced in Swift)

    @Test func nameConstraints() throws {
        let excluded = try TestHierarchy.make(leafDNSNames: ["www.bad.example.com"], customizeIntermediate: {
            $0.permittedDNSSubtrees = ["example.com"]
            $0.excludedDNSSubtrees = ["bad.example.com"]
        })
        let e = evaluate(excluded.chain, anchors: excluded.anchors)
        #expect(e.primaryFailure?.code == .nameConstraintsViolated)
        #expect(e.primaryFailure?.certificateIndex == 0)

        let dotted = try TestHierarchy.make(leafDNSNames: ["example.com"], customizeIntermediate: {
            $0.permittedDNSSubtrees = [".example.com"]
        })
        #expect(evaluate(dotted.chain, anchors: dotted.anchors).primaryFailure?.code == .nameConstraintsViolated)

        // A leaf without dNSName SANs is checked by its CN, as OpenSSL does.
        let cnOnly = try TestHierarchy.make(leafDNSNames: [], customizeIntermediate: {
            $0.permittedDNSSubtrees = ["example.com"]
        }, customizeLeaf: { $0.commonName = "www.example.org" })
        #expect(evaluate(cnOnly.chain, anchors: cnOnly.anchors).primaryFailure?.code == .nameConstraintsViolated)

        // The constraints apply whether the constrained CA is an intermediate or the anchor.
        let inside = try TestScenario.nameConstraints(leafDNSName: "api.example.com")
        #expect(evaluate(inside).isTrusted)
        let asAnchor = try TestScenario.nameConstraints(leafDNSName: "www.example.org")
        #expect(evaluate([asAnchor.leaf], anchors: [asAnchor.chain[1]]).primaryFailure?.code == .nameConstraintsViolated)
    }

    @Test func nameConstraintMatchingRules() throws {
        #expect(MbedTLSNameConstraints.dnsMatch("www.example.com", "example.com"))
        #expect(MbedTLSNameConstraints.dnsMatch("EXAMPLE.com", "example.COM"))
        #expect(!MbedTLSNameConstraints.dnsMatch("badexample.com", "example.com"))
        #expect(!MbedTLSNameConstraints.dnsMatch("example.com", ".example.com"))
        #expect(MbedTLSNameConstraints.dnsMatch("a.example.com", ".example.com"))
        #expect(MbedTLSNameConstraints.emailMatch("joe@example.com", "example.com") == true)
        #expect(MbedTLSNameConstraints.emailMatch("joe@mail.example.com", ".example.com") == true)
        #expect(MbedTLSNameConstraints.emailMatch("joe@example.com", "ann@example.com") == false)
        #expect(MbedTLSNameConstraints.emailMatch("no-at-sign", "example.com") == nil)
        #expect(MbedTLSNameConstraints.uriHost("https://www.example.com:8443/path") == "www.example.com")
        #expect(MbedTLSNameConstraints.looksLikeDNSName("www.example.org"))
        #expect(!MbedTLSNameConstraints.looksLikeDNSName("TLSTrust Test Leaf"))
        #expect(!MbedTLSNameConstraints.looksLikeDNSName("localhost"))
    }

    // MARK: Parsing and keys

    @Test func malformedDERIsRefused() throws {
        let der = try TestHierarchy.make().leaf.der
        for bad in [[], [0x30, 0x03, 0x02, 0x01, 0x01], Array(der.dropLast(10)), der + [0x00], Array(repeating: 0xFF, count: 64)] {
            #expect(throws: TLSTrustError(.malformedCertificate, "")) { try backend.parseCertificate(derEncoded: bad) }
        }
        #expect(try backend.parseCertificate(derEncoded: der).derEncoded == der)
    }

    @Test func ed25519IsReadButUnsupported() throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .ed25519)
        // Well-formed, so parsing succeeds; mbedTLS 2.28 just cannot use the algorithm.
        #expect(try backend.parseCertificate(derEncoded: pki.leaf.der) == pki.leaf.certificate)
        #expect(throws: TLSTrustError(.unsupported, "")) { try backend.publicKey(of: pki.leaf.certificate) }
        let evaluation = evaluate(pki.chain, anchors: pki.anchors)
        #expect(evaluation.primaryFailure?.code == .weakAlgorithm)
        #expect(evaluation.primaryFailure?.nativeDescription.contains("unsupported algorithm") == true)
        #expect(evaluation.chain.count == 3)
    }

    @Test func identity() {
        #expect(backend.name == "mbedtls")
        #expect(backend.libraryVersion.hasPrefix("mbed TLS 2.28"))
    }
}
