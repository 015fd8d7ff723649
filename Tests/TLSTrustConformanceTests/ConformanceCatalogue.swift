import Foundation
import TLSTrust
import TLSTrustTesting

/// The catalogue: every rule the backends must agree on, one case each.
extension ConformanceCase {
    static let all: [ConformanceCase] = fromScenarios + timeCases + purposeCases + nameCases + depthCases + anchorCases

    /// The 27 scenarios of `TLSTrustPKI`, each with its own expectation.
    static let fromScenarios: [ConformanceCase] = TestScenario.Kind.allCases.map { scenario($0) }

    /// The verification date is per evaluation.
    static let timeCases: [ConformanceCase] = [
        hierarchy("validChainJudgedBeforeItsValidity", .rejected(.notYetValid)) { _, t in
            t.verificationDate = Date(timeIntervalSinceNow: -2 * day)
        },
        hierarchy("validChainJudgedAfterItsExpiry", .rejected(.expired)) { _, t in
            t.verificationDate = Date(timeIntervalSinceNow: 400 * day)
        },
        hierarchy("expiredLeafJudgedWhileItWasValid", .trusted, make: {
            try TestHierarchy.make(
                customizeRoot: { $0.notBefore = Date(timeIntervalSinceNow: -90 * day) },
                customizeIntermediate: { $0.notBefore = Date(timeIntervalSinceNow: -90 * day) },
                customizeLeaf: {
                    $0.notBefore = Date(timeIntervalSinceNow: -30 * day)
                    $0.notAfter = Date(timeIntervalSinceNow: -day)
                })
        }) { _, t in
            t.verificationDate = Date(timeIntervalSinceNow: -10 * day)
        },
        hierarchy("expiredRootAnchor", .rejected(.expired), make: {
            try TestHierarchy.make(customizeRoot: {
                $0.notBefore = Date(timeIntervalSinceNow: -90 * day)
                $0.notAfter = Date(timeIntervalSinceNow: -day)
            })
        }) { _, _ in },
    ]

    /// Extended key usage.
    static let purposeCases: [ConformanceCase] = [
        scenario(.clientAuthOnlyLeaf, as: "clientAuthLeafForClientPurpose", .trusted) { _, t in
            t.policies = [.ssl(server: false)]
        },
        scenario(.clientAuthOnlyLeaf, as: "clientAuthLeafForAnyPurpose", .trusted) { _, t in
            t.policies = [.ssl(hostname: host), .purpose(.any)]
        },
        hierarchy("serverAuthOnlyLeafForClientPurpose", .rejected(.purposeNotAllowed), make: {
            try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.serverAuth] })
        }) { _, t in
            t.policies = [.basicX509, .purpose(.clientAuth)]
        },
        hierarchy("leafWithoutEKUAllowsServerPurpose", .trusted, make: {
            try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = nil })
        }) { _, _ in },
        hierarchy("basicPolicyChecksNoPurpose", .trusted, make: {
            try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] })
        }) { _, t in
            t.policies = [.basicX509]
        },
    ]

    /// Host names and IP addresses.
    static let nameCases: [ConformanceCase] = [
        hierarchy("hostNameIsCaseInsensitive", .trusted) { _, t in
            t.policies = [.ssl(hostname: "WWW.Example.COM")]
        },
        scenario(.wildcardLeaf, as: "wildcardDoesNotMatchTheBareDomain", .rejected(.hostnameMismatch)) { _, t in
            t.policies = [.ssl(hostname: "example.com")]
        },
        hierarchy("noCommonNameFallbackWhenDNSNamesExist", .rejected(.hostnameMismatch), make: {
            try TestHierarchy.make(customizeLeaf: { $0.commonName = "cn-only.example.com" })
        }) { _, t in
            t.policies = [.ssl(hostname: "cn-only.example.com")]
        },
        hierarchy("noCommonNameFallbackWhenOnlyIPAddressSANs", .rejected(.hostnameMismatch), make: {
            try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["192.0.2.10"],
                                   customizeLeaf: { $0.commonName = "www.example.com" })
        }) { _, _ in },
        hierarchy("commonNameNotUsedEvenWithoutAnySAN", .rejected(.hostnameMismatch), make: {
            try TestHierarchy.make(leafDNSNames: [], customizeLeaf: { $0.commonName = "www.example.com" })
        }) { _, _ in },
        hierarchy("commonNameUsedWithoutAnySANWhenAllowed", .trusted, make: {
            try TestHierarchy.make(leafDNSNames: [], customizeLeaf: { $0.commonName = "www.example.com" })
        }) { _, t in
            t.policies = [.ssl(hostname: host, allowingCommonName: true)]
        },
        hierarchy("ipLiteralIsNotMatchedAgainstDNSNames", .rejected(.ipAddressMismatch), make: {
            try TestHierarchy.make(leafDNSNames: ["127.0.0.1"])
        }) { _, t in
            t.policies = [.ssl(hostname: "127.0.0.1")]
        },
        hierarchy("ipv6LiteralMismatch", .rejected(.ipAddressMismatch), make: {
            try TestHierarchy.make(leafIPAddresses: ["2001:db8::1"])
        }) { _, t in
            t.policies = [.ssl(hostname: "2001:db8::2")]
        },
        hierarchy("absoluteHostNameWithTrailingDot", .trusted) { _, t in
            t.policies = [.ssl(hostname: "www.example.com.")]
        },
        scenario(.wildcardLeaf, as: "wildcardMatchesAnIDNLabel", .trusted) { _, t in
            t.policies = [.ssl(hostname: "xn--bcher-kva.example.com")]
        },
        hierarchy("noHostNameChecksNoName", .trusted) { _, t in
            t.policies = [.ssl()]
        },
    ]

    /// Maximum chain depth (intermediates between leaf and anchor).
    static let depthCases: [ConformanceCase] = [
        hierarchy("depthOneAllowsOneIntermediate", .trusted) { _, t in
            t.policies.append(.maximumChainDepth(1))
        },
        hierarchy("depthZeroRefusesAnIntermediate", .rejected(.chainTooLong)) { _, t in
            t.policies.append(.maximumChainDepth(0))
        },
        scenario(.longChain, as: "longChainWithinDepth", .trusted) { _, t in
            t.policies.append(.maximumChainDepth(5))
        },
        scenario(.longChain, as: "longChainBeyondDepth", .rejected(.chainTooLong)) { _, t in
            t.policies.append(.maximumChainDepth(4))
        },
        scenario(.longChain, as: "longChainIntermediatesShuffled", .trusted) { s, t in
            t.certificates = [s.chain[0].certificate] + [3, 1, 5, 2, 4].map { s.chain[$0].certificate }
        },
    ]

    /// Anchors: partial chains, anchors-only, the system store.
    static let anchorCases: [ConformanceCase] = [
        hierarchy("leafItselfAsTheOnlyAnchor", .trusted) { h, t in
            t.certificates = [h.leaf.certificate]
            t.anchors = .only([h.leaf.certificate])
        },
        scenario(.selfSignedLeaf, as: "selfSignedLeafAsAnchor", .trusted) { s, t in
            t.anchors = .only([s.leaf.certificate])
        },
        hierarchy("missingIntermediate", .rejected(.unknownIssuer)) { h, t in
            t.certificates = [h.leaf.certificate]
        },
        hierarchy("anchoredAtAnotherRoot", .rejected(.unknownIssuer)) { _, t in
            t.anchors = .only([try TestHierarchy.make().root.certificate])
        },
        hierarchy("rootPresentedButNotAnAnchor", .rejected(.untrustedRoot)) { h, t in
            t.certificates = h.chain.certificates + [h.root.certificate]
            t.anchors = .only([try TestHierarchy.make().root.certificate])
        },
        hierarchy("systemStoreHoldingTheRoot", .trusted) { h, t in
            t.anchors = TrustAnchors([], includingSystemStore: true, systemStore: try SystemStoreFiles.bundle(h.anchors))
        },
        hierarchy("customAnchorsExcludeTheSystemStore", .rejected(.unknownIssuer)) { h, t in
            let other = try TestHierarchy.make().root
            t.anchors = TrustAnchors([other.certificate], systemStore: try SystemStoreFiles.bundle(h.anchors))
        },
        hierarchy("customAnchorsPlusTheSystemStore", .trusted) { h, t in
            let other = try TestHierarchy.make().root
            t.anchors = TrustAnchors([other.certificate], includingSystemStore: true,
                                     systemStore: try SystemStoreFiles.bundle(h.anchors))
        },
    ]
}

/// Writes anchors to a bundle file that stands in for a system store. Files live in one
/// directory for the whole test process (cleaned at exit by the OS's tmp policy is not enough,
/// so each file is named uniquely and deleted by `SystemStoreFiles.cleanUp`).
enum SystemStoreFiles {
    static let directory: TemporaryDirectory = try! TemporaryDirectory(prefix: "tlstrust-conformance-store")

    static func bundle(_ anchors: [TestCertificate]) throws -> SystemTrustStore {
        let url = directory.file("store-\(UUID().uuidString).pem")
        try TestPKI.writePEM(anchors, to: url)
        return SystemTrustStore(files: [url.path])
    }
}
