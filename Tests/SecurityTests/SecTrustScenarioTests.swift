import Foundation
import Security
@_spi(Testing) import SecurityTLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The seed articles' scenarios, written with raw Sec* calls as the ported Objective-C does, on
/// every backend.
@Suite("SecTrust scenarios")
struct SecTrustScenarioTests {
    static let host = "api.example.com"

    // MARK: (1) the app's CA as the only anchor; a proxy CA from the system store refused

    @Test("(1) The app's CA as the only anchor trusts the app's chain and refuses a proxy CA in the system store", arguments: TestBackends.names)
    func appCAIsTheOnlyAnchor(backend: String) throws {
        let app = try TestHierarchy.make(leafDNSNames: [Self.host], customizeRoot: { $0.commonName = "App Root CA" })
        let proxy = try TestHierarchy.make(leafDNSNames: [Self.host], customizeRoot: { $0.commonName = "Charles Proxy CA" })
        try withSecurityEnvironment(backend: backend, systemAnchors: [proxy.root]) {
            let appCA = try app.root.secCertificate

            // The proxy's chain is trusted by the (test) system store alone…
            let proxied = try makeTrust(proxy.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
            #expect(evaluationErrorCode(proxied) == nil)
            // …and refused once the app's CA is the only anchor.
            #expect(SecTrustSetAnchorCertificates(proxied, [appCA] as CFArray) == errSecSuccess)
            #expect(evaluationErrorCode(proxied) == Int(errSecNotTrusted))
            var result = SecTrustResultType.invalid
            #expect(SecTrustGetTrustResult(proxied, &result) == errSecSuccess)
            #expect(result == .recoverableTrustFailure)

            let genuine = try makeTrust(app.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
            SecTrustSetAnchorCertificates(genuine, [appCA] as CFArray)
            #expect(evaluationErrorCode(genuine) == nil)
            #expect(SecTrustGetCertificateCount(genuine) == 3)
            #expect((SecTrustCopyCertificateChain(genuine) as? [SecCertificate])?.last === appCA)

            // Anchors only off: the system store is added back; nil restores the default anchors.
            SecTrustSetAnchorCertificatesOnly(proxied, false)
            #expect(evaluationErrorCode(proxied) == nil)
            SecTrustSetAnchorCertificates(genuine, nil)
            #expect(evaluationErrorCode(genuine) == Int(errSecNotTrusted))
        }
    }

    // MARK: (2) AFSecurityPolicy's three modes, written with raw Sec* calls

    enum PinningMode: Sendable { case none, publicKey, certificate }

    /// AFNetworking 4.0.1's `evaluateServerTrust:forDomain:` as a port writes it against `import Security`.
    struct AFSecurityPolicyPort {
        var mode: PinningMode
        var pinnedCertificates: [Data] = []
        var allowInvalidCertificates = false
        var validatesDomainName = true

        private static func serverTrustIsValid(_ trust: SecTrust) -> Bool {
            var result = SecTrustResultType.invalid
            let status = SecTrustEvaluate(trust, &result)
            return status == errSecSuccess && (result == .unspecified || result == .proceed)
        }

        private static func certificateChain(_ trust: SecTrust) -> [Data] {
            (0..<SecTrustGetCertificateCount(trust)).compactMap { index in
                SecTrustGetCertificateAtIndex(trust, index).map { SecCertificateCopyData($0) as Data }
            }
        }

        private static func publicKey(for certificate: Data) -> SecKey? {
            guard let certificate = SecCertificateCreateWithData(nil, certificate as CFData) else { return nil }
            var trust: SecTrust?
            guard SecTrustCreateWithCertificates(certificate, SecPolicyCreateBasicX509(), &trust) == errSecSuccess,
                  let trust else { return nil }
            var result = SecTrustResultType.invalid
            SecTrustEvaluate(trust, &result)
            return SecTrustCopyPublicKey(trust)
        }

        private static func publicKeyChain(_ trust: SecTrust) -> [SecKey] {
            let policy = SecPolicyCreateBasicX509()
            return (0..<SecTrustGetCertificateCount(trust)).compactMap { index in
                guard let certificate = SecTrustGetCertificateAtIndex(trust, index) else { return nil }
                var single: SecTrust?
                SecTrustCreateWithCertificates([certificate] as CFArray, policy, &single)
                var result = SecTrustResultType.invalid
                guard let single, SecTrustEvaluate(single, &result) == errSecSuccess else { return nil }
                return SecTrustCopyPublicKey(single)
            }
        }

        func evaluateServerTrust(_ serverTrust: SecTrust, forDomain domain: String?) -> Bool {
            if domain != nil && allowInvalidCertificates && validatesDomainName
                && (mode == .none || pinnedCertificates.isEmpty) {
                return false
            }
            let policy = validatesDomainName
                ? SecPolicyCreateSSL(true, domain.map { $0 as CFString }) : SecPolicyCreateBasicX509()
            SecTrustSetPolicies(serverTrust, [policy] as CFArray)

            if mode == .none {
                return allowInvalidCertificates || Self.serverTrustIsValid(serverTrust)
            } else if !allowInvalidCertificates && !Self.serverTrustIsValid(serverTrust) {
                return false
            }
            switch mode {
            case .certificate:
                let pinned = pinnedCertificates.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
                SecTrustSetAnchorCertificates(serverTrust, pinned as CFArray)
                guard Self.serverTrustIsValid(serverTrust) else { return false }
                return Self.certificateChain(serverTrust).reversed().contains { pinnedCertificates.contains($0) }
            case .publicKey:
                let pinnedKeys = pinnedCertificates.compactMap(Self.publicKey(for:))
                return Self.publicKeyChain(serverTrust).contains { key in pinnedKeys.contains { CFEqual(key, $0) } }
            case .none:
                return false
            }
        }
    }

    @Test("(2) AFSecurityPolicy's three modes, with raw Sec* calls", arguments: TestBackends.names)
    func afSecurityPolicyModes(backend: String) throws {
        let real = try TestHierarchy.make(leafDNSNames: [Self.host])
        let rogue = try TestHierarchy.make(leafDNSNames: [Self.host], customizeRoot: { $0.commonName = "Rogue Root CA" })
        let selfSigned = try TestPKI.issue(.leaf(commonName: Self.host, dnsNames: [Self.host]), issuer: nil)
        try withSecurityEnvironment(backend: backend, systemAnchors: [real.root, rogue.root]) {
            let realChain = try real.chain.map { try $0.secCertificate }
            let rogueChain = try rogue.chain.map { try $0.secCertificate }
            let selfSignedChain = [try selfSigned.secCertificate]
            /// A fresh trust for what the server presents, as a URLSession challenge hands it over.
            func presented(_ chain: [SecCertificate]) -> SecTrust {
                var trust: SecTrust?
                SecTrustCreateWithCertificates(chain as CFArray, SecPolicyCreateSSL(true, Self.host as CFString), &trust)
                return trust!
            }
            // Mode none: the system's CAs decide, and the domain is checked.
            let none = AFSecurityPolicyPort(mode: .none)
            #expect(none.evaluateServerTrust(presented(realChain), forDomain: Self.host))
            #expect(none.evaluateServerTrust(presented(rogueChain), forDomain: Self.host))
            #expect(!none.evaluateServerTrust(presented(realChain), forDomain: "other.example.com"))
            #expect(!none.evaluateServerTrust(presented(selfSignedChain), forDomain: Self.host))

            // Certificate mode: the pinned leaf becomes the only anchor; the rogue chain is refused.
            let certificate = AFSecurityPolicyPort(mode: .certificate, pinnedCertificates: [Data(real.leaf.der)])
            #expect(certificate.evaluateServerTrust(presented(realChain), forDomain: Self.host))
            #expect(!certificate.evaluateServerTrust(presented(rogueChain), forDomain: Self.host))

            // Public-key mode: the rogue chain validates but carries no pinned key.
            let publicKey = AFSecurityPolicyPort(mode: .publicKey, pinnedCertificates: [Data(real.intermediate.der)])
            #expect(publicKey.evaluateServerTrust(presented(realChain), forDomain: Self.host))
            #expect(!publicKey.evaluateServerTrust(presented(rogueChain), forDomain: Self.host))

            // A pinned self-signed server: certificate mode with invalid certificates allowed.
            var pinnedSelfSigned = AFSecurityPolicyPort(mode: .certificate, pinnedCertificates: [Data(selfSigned.der)])
            pinnedSelfSigned.allowInvalidCertificates = true
            #expect(pinnedSelfSigned.evaluateServerTrust(presented(selfSignedChain), forDomain: Self.host))
            #expect(!pinnedSelfSigned.evaluateServerTrust(presented(realChain), forDomain: Self.host))
        }
    }

    // MARK: (4) two anchors: a self-signed CA and a public-style CA

    @Test("(4) Two anchors, a self-signed CA and a public-style CA: both chains give proceed (anchors the app set)", arguments: TestBackends.names)
    func twoAnchors(backend: String) throws {
        let own = try TestHierarchy.make(leafDNSNames: ["intranet.example.com"], customizeRoot: { $0.commonName = "Our Self-Signed CA" })
        let publicCA = try TestHierarchy.make(leafDNSNames: [Self.host], customizeRoot: { $0.commonName = "Public-Style Root CA" })
        try withSecurityEnvironment(backend: backend) {
            let anchors = [try own.root.secCertificate, try publicCA.root.secCertificate]
            for (hierarchy, host) in [(own, "intranet.example.com"), (publicCA, Self.host)] {
                let trust = try makeTrust(hierarchy.chain, [SecPolicyCreateSSL(true, host as CFString)])
                SecTrustSetAnchorCertificates(trust, anchors as CFArray)
                SecTrustSetAnchorCertificatesOnly(trust, false)
                var result = SecTrustResultType.invalid
                #expect(SecTrustEvaluate(trust, &result) == errSecSuccess)
                #expect(result == .proceed, "\(host): \(result)")
                let summary = SecTrustCopyResult(trust) as? [String: Any]
                #expect((summary?[kSecTrustResultValue as String] as? NSNumber)?.uint32Value == result.rawValue)
            }
        }
    }

    // MARK: (5) SecTrustEvaluate with a local anchor, and a public-key comparison

    @Test("(5) A local certificate as the anchor, then the server key compared with the local one", arguments: TestBackends.names)
    func localAnchorAndPublicKeyComparison(backend: String) throws {
        let server = try TestHierarchy.make(leafDNSNames: [Self.host])
        let impostor = try TestHierarchy.make(leafDNSNames: [Self.host])
        try withSecurityEnvironment(backend: backend, systemAnchors: [impostor.root]) {
            let local = try server.leaf.secCertificate          // the .cer bundled with the app
            for (chain, expected) in [(server.chain, true), (impostor.chain, false)] {
                let trust = try makeTrust(chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
                SecTrustSetAnchorCertificates(trust, [local] as CFArray)
                var result = SecTrustResultType.invalid
                #expect(SecTrustEvaluate(trust, &result) == errSecSuccess)
                let trusted = result == .unspecified || result == .proceed
                let sameKey = SecTrustCopyPublicKey(trust) == SecCertificateCopyKey(local)
                #expect(trusted == expected)
                #expect(sameKey == expected)
            }
        }
    }

    // MARK: Apple's documented edge cases

    @Test("The built chain is shorter than the presented one when an intermediate is missing", arguments: TestBackends.names)
    func missingIntermediate(backend: String) throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let unrelated = try TestHierarchy.make()
        try withSecurityEnvironment(backend: backend) {
            let trust = try makeTrust([pki.leaf, unrelated.intermediate], [SecPolicyCreateSSL(true, Self.host as CFString)])
            SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray)
            // Index 0 is the leaf, without evaluation.
            let leaf = try pki.leaf.secCertificate
            #expect(SecTrustGetCertificateAtIndex(trust, 0) == leaf)
            var result = SecTrustResultType.invalid
            #expect(SecTrustGetTrustResult(trust, &result) == errSecSuccess && result == .invalid)
            #expect(SecTrustCopyResult(trust) == nil)

            #expect(SecTrustGetCertificateCount(trust) == 1)
            #expect(SecTrustGetCertificateAtIndex(trust, 1) == nil)
            #expect(evaluationErrorCode(trust) == Int(errSecNotTrusted))
            #expect(SecTrustGetTrustResult(trust, &result) == errSecSuccess && result == .recoverableTrustFailure)
        }
    }

    @Test("Failures carry Apple's codes: expired, host name mismatch, not trusted", arguments: TestBackends.names)
    func appleStatusCodes(backend: String) throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        try withSecurityEnvironment(backend: backend, systemAnchors: [pki.root]) {
            let expired = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
            SecTrustSetVerifyDate(expired, Date(timeIntervalSinceNow: 20 * 365 * 86_400) as CFDate)
            #expect(evaluationErrorCode(expired) == Int(errSecCertificateExpired))

            let mismatch = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, "evil.example.org" as CFString)])
            var error: CFError?
            #expect(!SecTrustEvaluateWithError(mismatch, &error))
            #expect(error.map(CFErrorGetCode) == Int(errSecHostNameMismatch))
            #expect((error.flatMap { CFErrorCopyDescription($0) as String? })?.contains("does not match") == true)

            let untrusted = try makeTrust(pki.chain, [SecPolicyCreateBasicX509()])
            SecTrustSetAnchorCertificates(untrusted, [] as CFArray)
            #expect(evaluationErrorCode(untrusted) == Int(errSecNotTrusted))

            // A positive revocation answer cannot be had offline.
            let revocation = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
            SecTrustSetPolicies(revocation, [SecPolicyCreateSSL(true, Self.host as CFString),
                                             SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod)!] as CFArray)
            #expect(evaluationErrorCode(revocation) == nil)
            SecTrustSetPolicies(revocation, SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod | kSecRevocationRequirePositiveResponse)!)
            #expect(evaluationErrorCode(revocation) == Int(errSecIncompleteCertRevocationCheck))
        }
    }

    @Test("A SecTrust is Sendable: concurrent evaluations and date changes of one trust agree", arguments: TestBackends.names)
    func concurrentEvaluation(backend: String) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let trust = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
        SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray)
        let future = Date(timeIntervalSinceNow: 20 * 365 * 86_400) as CFDate
        let now = Date() as CFDate
        let codes = try await SecTrustEnvironment.$backend.withValue(TestBackends.named(backend)) {
            try await withThrowingTaskGroup(of: Int?.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        // Half the tasks move the date, half evaluate whatever the trust holds then.
                        if index % 4 == 0 { SecTrustSetVerifyDate(trust, index % 8 == 0 ? future : now) }
                        return evaluationErrorCode(trust)
                    }
                }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
        }
        #expect(codes.allSatisfy { $0 == nil || $0 == Int(errSecCertificateExpired) })
        SecTrustSetVerifyDate(trust, now)
        #expect(evaluationErrorCode(trust) == nil)
    }

    @Test("Without an override the Sec layer evaluates on the documented default, OpenSSL")
    func defaultBackend() throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let trust = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
        SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray)
        #expect(evaluationErrorCode(trust) == nil)
    }
}
