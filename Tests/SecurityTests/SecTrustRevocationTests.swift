import Foundation
import Security
@_spi(Testing) import SecurityTLSTrust
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Apple's revocation API in `import Security`, over the engine's revocation checking, with real
/// artefacts made at test time: a CA and two leaves minted with the test kit, and a CRL and OCSP
/// responses made from them by the `openssl` command-line tool (`openssl ca -gencrl`,
/// `openssl ocsp -index`), so that an independent implementation writes every answer the engine
/// judges.
@Suite("Security: revocation (SecPolicyCreateRevocation, SecTrustSetOCSPResponse, network fetch, async)")
struct SecTrustRevocationTests {
    /// The CA, a leaf it says is good and one it has revoked, and its answers about both.
    struct Artefacts: Sendable {
        let ca: TestCertificate
        let good: TestCertificate
        let revoked: TestCertificate
        /// A CRL of the CA listing `revoked` (DER, from `openssl ca -gencrl`).
        let crl: [UInt8]
        /// OCSP responses signed by the CA (from `openssl ocsp -index`).
        let goodResponse: [UInt8]
        let revokedResponse: [UInt8]
        /// An OCSP response about `good` signed by another CA's key: not usable.
        let forgedResponse: [UInt8]

        static let host = "good.example.com"
        static let revokedHost = "revoked.example.com"
    }

    /// Made once for the suite: minting and three openssl runs are the slow part.
    static let artefacts: Result<Artefacts, any Error> = Result { try makeArtefacts() }

    static func makeArtefacts() throws -> Artefacts {
        let ca = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Revocation Test CA"))
        let other = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Revocation Test CA"))
        var goodProfile = CertificateProfile.leaf(commonName: Artefacts.host, dnsNames: [Artefacts.host])
        goodProfile.serialNumber = [0x10, 0x01]
        var revokedProfile = CertificateProfile.leaf(commonName: Artefacts.revokedHost, dnsNames: [Artefacts.revokedHost])
        revokedProfile.serialNumber = [0x10, 0x02]
        let good = try TestPKI.issue(goodProfile, issuer: ca)
        let revoked = try TestPKI.issue(revokedProfile, issuer: ca)

        return try TemporaryDirectory.with { directory in
            func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
            try TestPKI.writePEM([ca], to: URL(fileURLWithPath: path("ca.pem")))
            try TestPKI.writePEM(ca.privateKey, to: URL(fileURLWithPath: path("ca.key")))
            try TestPKI.writePEM([other], to: URL(fileURLWithPath: path("other.pem")))
            try TestPKI.writePEM(other.privateKey, to: URL(fileURLWithPath: path("other.key")))
            try TestPKI.writePEM([good], to: URL(fileURLWithPath: path("good.pem")))
            try TestPKI.writePEM([revoked], to: URL(fileURLWithPath: path("revoked.pem")))

            // openssl ca's database: V(alid) and R(evoked) lines, serials in hex, revoked an hour ago.
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "UTC")
            format.dateFormat = "yyMMddHHmmss'Z'"
            let expiry = format.string(from: Date(timeIntervalSinceNow: 365 * 86400))
            let revokedAt = format.string(from: Date(timeIntervalSinceNow: -3600))
            let index = "V\t\(expiry)\t\t1001\tunknown\t/CN=\(Artefacts.host)\n"
                + "R\t\(expiry)\t\(revokedAt)\t1002\tunknown\t/CN=\(Artefacts.revokedHost)\n"
            try Data(index.utf8).write(to: URL(fileURLWithPath: path("index.txt")))
            try Data("01\n".utf8).write(to: URL(fileURLWithPath: path("crlnumber")))
            let config = """
                [ ca ]
                default_ca = test_ca
                [ test_ca ]
                database = \(path("index.txt"))
                crlnumber = \(path("crlnumber"))
                default_md = sha256
                default_crl_days = 1

                """
            try Data(config.utf8).write(to: URL(fileURLWithPath: path("ca.cnf")))

            try TestPKI.openssl(["ca", "-gencrl", "-batch", "-config", path("ca.cnf"), "-keyfile", path("ca.key"),
                                 "-cert", path("ca.pem"), "-out", path("crl.pem")])
            try TestPKI.openssl(["crl", "-in", path("crl.pem"), "-outform", "DER", "-out", path("crl.der")])

            func ocsp(_ leaf: String, signer: String, out: String) throws -> [UInt8] {
                try TestPKI.openssl(["ocsp", "-index", path("index.txt"), "-rsigner", path("\(signer).pem"),
                                     "-rkey", path("\(signer).key"), "-CA", path("ca.pem"), "-issuer", path("ca.pem"),
                                     "-cert", path("\(leaf).pem"), "-no_nonce", "-respout", path(out), "-ndays", "1"])
                return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(out))))
            }
            return Artefacts(
                ca: ca, good: good, revoked: revoked,
                crl: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("crl.der")))),
                goodResponse: try ocsp("good", signer: "ca", out: "good.der"),
                revokedResponse: try ocsp("revoked", signer: "ca", out: "revoked.der"),
                forgedResponse: try ocsp("good", signer: "other", out: "forged.der"))
        }
    }

    static func fixture() throws -> Artefacts { try artefacts.get() }

    /// Runs `body` with the artefacts in the security environment of `backend`.
    static func withFixture(on backend: String, _ body: (Artefacts) throws -> Void) throws {
        let fixture = try Self.fixture()
        try withSecurityEnvironment(backend: backend) { try body(fixture) }
    }

    /// A trust over `leaf` alone, anchored at the CA only, with the SSL policy for `host` and `policies`.
    static func trust(_ leaf: TestCertificate, host: String, _ policies: [SecPolicy] = []) throws -> SecTrust {
        let fixture = try Self.fixture()
        let trust = try makeTrust([leaf], [SecPolicyCreateSSL(true, host as CFString)] + policies)
        #expect(SecTrustSetAnchorCertificates(trust, [try fixture.ca.secCertificate] as CFArray) == errSecSuccess)
        return trust
    }

    static func revocationPolicy(_ flags: CFOptionFlags) throws -> SecPolicy {
        try #require(SecPolicyCreateRevocation(flags))
    }

    /// The result type of the last evaluation.
    static func result(_ trust: SecTrust) -> SecTrustResultType {
        var result = SecTrustResultType.invalid
        SecTrustGetTrustResult(trust, &result)
        return result
    }

    /// The `NSDebugDescription` of the error `SecTrustEvaluateWithError` gives (TLSTrust's failure).
    static func debugDescription(_ trust: SecTrust) -> String {
        var error: CFError?
        _ = SecTrustEvaluateWithError(trust, &error)
        return error?.userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
    }

    // MARK: Flags

    @Test("Apple's flag values; 0 and every bit above the five public ones give nil")
    func flags() throws {
        #expect(kSecRevocationOCSPMethod == 1)
        #expect(kSecRevocationCRLMethod == 2)
        #expect(kSecRevocationUseAnyAvailableMethod == 3)
        #expect(kSecRevocationPreferCRL == 4)
        #expect(kSecRevocationRequirePositiveResponse == 8)
        #expect(kSecRevocationNetworkAccessDisabled == 16)

        for flags: CFOptionFlags in [1, 2, 3, 4, 8, 16, 0x1F, kSecRevocationUseAnyAvailableMethod | kSecRevocationRequirePositiveResponse] {
            let policy = SecPolicyCreateRevocation(flags)
            #expect(policy != nil, "flags \(flags)")
            #expect(policy.map { CFGetTypeID($0) } == SecPolicyGetTypeID())
        }
        // 0: Apple's returns NULL. 1 << 5 and 1 << 6: Apple's private bits, not implemented.
        // Above: undefined everywhere.
        for flags: CFOptionFlags in [0, 1 << 5, 1 << 6, 1 << 7, 1 << 31, 0x21, 0x3F, .max] {
            #expect(SecPolicyCreateRevocation(flags) == nil, "flags \(flags)")
        }
    }

    // MARK: Revocation reaches Apple's results

    @Test("A CRL that lists the leaf refuses it: errSecCertificateRevoked, fatal; the other leaf is trusted", arguments: TestBackends.names)
    func revokedByCRL(backend: String) throws {
        let fixture = try Self.fixture()
        let crl = try CertificateRevocationList(derEncoded: fixture.crl)
        try withSecurityEnvironment(backend: backend) {
            let policy = try Self.revocationPolicy(kSecRevocationCRLMethod | kSecRevocationRequirePositiveResponse)
            let revoked = try Self.trust(fixture.revoked, host: Artefacts.revokedHost, [policy])
            revoked.setCertificateRevocationLists([crl])
            var error: CFError?
            #expect(!SecTrustEvaluateWithError(revoked, &error))
            #expect(error.map { CFErrorGetCode($0) } == Int(errSecCertificateRevoked))
            #expect(error?.localizedDescription.contains("revoked") == true, "\(String(describing: error))")
            #expect(Self.result(revoked) == .fatalTrustFailure)

            let good = try Self.trust(fixture.good, host: Artefacts.host, [policy])
            good.setCertificateRevocationLists([crl])
            #expect(evaluationErrorCode(good) == nil)
            #expect(Self.result(good) == .proceed)
            let result = try #require(SecTrustCopyResult(good) as? [String: Any])
            #expect(result[kSecTrustRevocationChecked as String] as? Bool == true)

            // Without a revocation policy the CRL the app gave is still consulted: revoked stays revoked.
            let unasked = try Self.trust(fixture.revoked, host: Artefacts.revokedHost)
            unasked.setCertificateRevocationLists([crl])
            #expect(evaluationErrorCode(unasked) == Int(errSecCertificateRevoked))
            // OCSP only: the CRL is not consulted, and no other answer exists (soft-fail).
            let ocspOnly = try Self.trust(fixture.revoked, host: Artefacts.revokedHost,
                                          [try Self.revocationPolicy(kSecRevocationOCSPMethod | kSecRevocationNetworkAccessDisabled)])
            ocspOnly.setCertificateRevocationLists([crl])
            #expect(evaluationErrorCode(ocspOnly) == nil)
        }
    }

    @Test("A good OCSP response given with SecTrustSetOCSPResponse is trusted, even under RequirePositiveResponse", arguments: TestBackends.names)
    func goodOCSPResponse(backend: String) throws {
        try Self.withFixture(on: backend) { fixture in
            let policy = try Self.revocationPolicy(kSecRevocationOCSPMethod | kSecRevocationRequirePositiveResponse)
            let trust = try Self.trust(fixture.good, host: Artefacts.host, [policy])
            #expect(SecTrustSetOCSPResponse(trust, Data(fixture.goodResponse) as CFData) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == nil)
            #expect(Self.result(trust) == .proceed)
            let result = try #require(SecTrustCopyResult(trust) as? [String: Any])
            #expect(result[kSecTrustRevocationChecked as String] as? Bool == true)

            // An array of CFData works too, and a response about another certificate is passed over.
            let both = try Self.trust(fixture.good, host: Artefacts.host, [policy])
            let array = [Data(fixture.revokedResponse) as CFData, Data(fixture.goodResponse) as CFData] as CFArray
            #expect(SecTrustSetOCSPResponse(both, array) == errSecSuccess)
            #expect(evaluationErrorCode(both) == nil)
        }
    }

    @Test("A revoked OCSP response refuses the leaf: errSecCertificateRevoked, fatal, with or without a revocation policy", arguments: TestBackends.names)
    func revokedOCSPResponse(backend: String) throws {
        try Self.withFixture(on: backend) { fixture in
            for policies in [[try Self.revocationPolicy(kSecRevocationUseAnyAvailableMethod)], []] {
                let trust = try Self.trust(fixture.revoked, host: Artefacts.revokedHost, policies)
                // Trusted before the answer arrives (soft), refused after: setting it discards the result.
                #expect(evaluationErrorCode(trust) == nil)
                #expect(SecTrustSetOCSPResponse(trust, Data(fixture.revokedResponse) as CFData) == errSecSuccess)
                #expect(Self.result(trust) == .invalid)
                #expect(evaluationErrorCode(trust) == Int(errSecCertificateRevoked))
                #expect(Self.result(trust) == .fatalTrustFailure)
                #expect(Self.debugDescription(trust).contains("revoked"))
                // nil removes the responses.
                #expect(SecTrustSetOCSPResponse(trust, nil) == errSecSuccess)
                #expect(evaluationErrorCode(trust) == nil)
            }
        }
    }

    @Test("RequirePositiveResponse without a usable answer: errSecIncompleteCertRevocationCheck, recoverable; without the flag: trusted", arguments: TestBackends.names)
    func requirePositiveResponse(backend: String) throws {
        try Self.withFixture(on: backend) { fixture in
            let hard = try Self.trust(fixture.good, host: Artefacts.host,
                                      [try Self.revocationPolicy(kSecRevocationUseAnyAvailableMethod | kSecRevocationRequirePositiveResponse)])
            var error: CFError?
            #expect(!SecTrustEvaluateWithError(hard, &error))
            #expect(error.map { CFErrorGetCode($0) } == Int(errSecIncompleteCertRevocationCheck))
            #expect(Self.result(hard) == .recoverableTrustFailure)

            // A response signed by a key that is not the issuer's is no answer at all.
            #expect(SecTrustSetOCSPResponse(hard, Data(fixture.forgedResponse) as CFData) == errSecSuccess)
            #expect(evaluationErrorCode(hard) == Int(errSecIncompleteCertRevocationCheck))
            // The real one is.
            #expect(SecTrustSetOCSPResponse(hard, Data(fixture.goodResponse) as CFData) == errSecSuccess)
            #expect(evaluationErrorCode(hard) == nil)

            let soft = try Self.trust(fixture.good, host: Artefacts.host, [try Self.revocationPolicy(kSecRevocationUseAnyAvailableMethod)])
            #expect(evaluationErrorCode(soft) == nil)
            #expect(Self.result(soft) == .proceed)
            let result = try #require(SecTrustCopyResult(soft) as? [String: Any])
            #expect(result[kSecTrustRevocationChecked as String] as? Bool == false)
            // A response about another certificate says nothing about this one.
            #expect(SecTrustSetOCSPResponse(soft, Data(fixture.revokedResponse) as CFData) == errSecSuccess)
            #expect(evaluationErrorCode(soft) == nil)
        }
    }

    @Test("Several revocation policies combine to the strictest: hard-fail if one requires it, their methods together, no network if one disables it", arguments: TestBackends.names)
    func combinedPolicies(backend: String) throws {
        let fixture = try Self.fixture()
        let crl = try CertificateRevocationList(derEncoded: fixture.crl)
        try withSecurityEnvironment(backend: backend) {
            let ocspSoft = try Self.revocationPolicy(kSecRevocationOCSPMethod)
            let crlHard = try Self.revocationPolicy(kSecRevocationCRLMethod | kSecRevocationRequirePositiveResponse
                                                    | kSecRevocationNetworkAccessDisabled)
            let trust = try Self.trust(fixture.good, host: Artefacts.host, [ocspSoft, crlHard])
            #expect(evaluationErrorCode(trust) == Int(errSecIncompleteCertRevocationCheck))
            #expect(!Self.debugDescription(trust).contains("fetch"), "\(Self.debugDescription(trust))")
            // The OCSP method comes from the soft policy, the requirement from the hard one.
            #expect(SecTrustSetOCSPResponse(trust, Data(fixture.goodResponse) as CFData) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == nil)

            let revoked = try Self.trust(fixture.revoked, host: Artefacts.revokedHost, [ocspSoft, crlHard])
            revoked.setCertificateRevocationLists([crl])
            #expect(evaluationErrorCode(revoked) == Int(errSecCertificateRevoked))
        }
    }

    @Test("SecTrustSetOCSPResponse refuses what is not DER OCSP data, and keeps what the trust had")
    func badOCSPInput() throws {
        try Self.withFixture(on: TestBackends.names[0]) { fixture in
            let trust = try Self.trust(fixture.revoked, host: Artefacts.revokedHost)
            #expect(SecTrustSetOCSPResponse(trust, Data(fixture.revokedResponse) as CFData) == errSecSuccess)
            #expect(SecTrustSetOCSPResponse(trust, "not data" as CFString) == errSecParam)
            #expect(SecTrustSetOCSPResponse(trust, [Data(fixture.goodResponse) as CFData, "x" as CFString] as CFArray) == errSecParam)
            #expect(SecTrustSetOCSPResponse(trust, Data([0x30, 0x03, 0x0A, 0x01]) as CFData) == errSecDecode)
            #expect(SecTrustSetOCSPResponse(trust, Data(fixture.crl) as CFData) == errSecDecode)
            // The revoked answer is still there: refused, never trusted because of bad input.
            #expect(evaluationErrorCode(trust) == Int(errSecCertificateRevoked))
        }
    }

    // MARK: Network fetch

    @Test("SecTrustGetNetworkFetchAllowed: Apple's default per policy, then what was set; setting discards the result")
    func networkFetchFlag() throws {
        let fixture = try Self.fixture()
        func allowed(_ trust: SecTrust) -> Bool {
            var value: DarwinBoolean = false
            #expect(SecTrustGetNetworkFetchAllowed(trust, &value) == errSecSuccess)
            return value.boolValue
        }
        try withSecurityEnvironment(backend: TestBackends.names[0]) {
            let basic = try makeTrust([fixture.good], [SecPolicyCreateBasicX509()])
            #expect(!allowed(basic))
            #expect(allowed(try makeTrust([fixture.good], [SecPolicyCreateSSL(true, Artefacts.host as CFString)])))
            #expect(allowed(try makeTrust([fixture.good], [SecPolicyCreateBasicX509(), try Self.revocationPolicy(kSecRevocationUseAnyAvailableMethod)])))
            #expect(!allowed(try makeTrust([fixture.good], [SecPolicyCreateBasicX509(),
                                                            try Self.revocationPolicy(kSecRevocationUseAnyAvailableMethod | kSecRevocationNetworkAccessDisabled)])))

            let trust = try Self.trust(fixture.good, host: Artefacts.host)
            #expect(allowed(trust))
            #expect(evaluationErrorCode(trust) == nil)
            #expect(Self.result(trust) == .proceed)
            #expect(SecTrustSetNetworkFetchAllowed(trust, false) == errSecSuccess)
            #expect(Self.result(trust) == .invalid)
            #expect(!allowed(trust))
            #expect(SecTrustSetNetworkFetchAllowed(trust, true) == errSecSuccess)
            #expect(allowed(trust))
            #expect(SecTrustSetNetworkFetchAllowed(basic, true) == errSecSuccess)
            #expect(allowed(basic))
            #expect(Bool(DarwinBoolean(true)) && !DarwinBoolean(false).boolValue)
        }
    }

    @Test("The network permission reaches the engine: with it a hard-fail check tries to fetch, without it nothing is fetched", arguments: TestBackends.names)
    func networkFetchReachesTheEngine(backend: String) throws {
        try Self.withFixture(on: backend) { fixture in
            let flags = kSecRevocationUseAnyAvailableMethod | kSecRevocationRequirePositiveResponse
            // The leaf names no OCSP responder and no CRL distribution point, so nothing is reached
            // either way; what the engine records says whether it was allowed to try.
            let allowed = try Self.trust(fixture.good, host: Artefacts.host, [try Self.revocationPolicy(flags)])
            #expect(evaluationErrorCode(allowed) == Int(errSecIncompleteCertRevocationCheck))
            #expect(Self.debugDescription(allowed).contains("fetch"), "\(Self.debugDescription(allowed))")

            SecTrustSetNetworkFetchAllowed(allowed, false)
            #expect(evaluationErrorCode(allowed) == Int(errSecIncompleteCertRevocationCheck))
            #expect(!Self.debugDescription(allowed).contains("fetch"), "\(Self.debugDescription(allowed))")

            let disabled = try Self.trust(fixture.good, host: Artefacts.host,
                                          [try Self.revocationPolicy(flags | kSecRevocationNetworkAccessDisabled)])
            SecTrustSetNetworkFetchAllowed(disabled, true)
            #expect(evaluationErrorCode(disabled) == Int(errSecIncompleteCertRevocationCheck))
            #expect(!Self.debugDescription(disabled).contains("fetch"), "\(Self.debugDescription(disabled))")
        }
    }

    // MARK: Asynchronous evaluation

    @Test("SecTrustEvaluateAsyncWithError evaluates off the given queue and calls back on it with SecTrustEvaluateWithError's verdict", arguments: TestBackends.names)
    func asyncEvaluation(backend: String) async throws {
        let fixture = try Self.fixture()
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "revocation-callbacks")
        queue.setSpecific(key: key, value: "callbacks")

        struct Verdict: Sendable { let trusted: Bool; let code: Int?; let onQueue: Bool; let evaluatedWhileQueueBusy: Bool }
        func evaluate(_ trust: SecTrust) async -> Verdict {
            // The callback queue is held busy until the trust has a result (or 30 s): the
            // evaluation must run elsewhere, else it would only start once the queue is released.
            let release = DispatchSemaphore(value: 0)
            let watcher = DispatchSemaphore(value: 0)
            queue.async { release.wait() }
            nonisolated(unsafe) var evaluatedWhileBusy = false
            Thread {  // a thread of its own: it polls, and the evaluation may need a Dispatch worker
                let deadline = Date(timeIntervalSinceNow: 30)
                while Self.result(trust) == .invalid && Date() < deadline { usleep(1000) }
                evaluatedWhileBusy = Self.result(trust) != .invalid
                watcher.signal()
                release.signal()
            }.start()
            let status = SecTrustEvaluateAsyncWithError(trust, queue) { _, _, _ in }
            #expect(status == errSecSuccess)
            watcher.wait()
            let sawResult = evaluatedWhileBusy
            // A second call, on a free queue, for the callback's arguments (the trust keeps its result).
            return await withCheckedContinuation { (continuation: CheckedContinuation<Verdict, Never>) in
                SecTrustEvaluateAsyncWithError(trust, queue) { _, trusted, error in
                    continuation.resume(returning: Verdict(trusted: trusted, code: error.map { CFErrorGetCode($0) },
                                                           onQueue: DispatchQueue.getSpecific(key: key) == "callbacks",
                                                           evaluatedWhileQueueBusy: sawResult))
                }
            }
        }

        let policy = try Self.revocationPolicy(kSecRevocationOCSPMethod | kSecRevocationRequirePositiveResponse)
        try await SecTrustEnvironment.$backend.withValue(TestBackends.named(backend)) {
            let good = try Self.trust(fixture.good, host: Artefacts.host, [policy])
            SecTrustSetOCSPResponse(good, Data(fixture.goodResponse) as CFData)
            let revoked = try Self.trust(fixture.revoked, host: Artefacts.revokedHost, [policy])
            SecTrustSetOCSPResponse(revoked, Data(fixture.revokedResponse) as CFData)
            let unanswered = try Self.trust(fixture.good, host: Artefacts.host, [policy])

            for (trust, expected) in [(good, nil), (revoked, Int(errSecCertificateRevoked)), (unanswered, Int(errSecIncompleteCertRevocationCheck))] {
                let verdict = await evaluate(trust)
                #expect(verdict.evaluatedWhileQueueBusy)
                #expect(verdict.onQueue)
                #expect(verdict.trusted == (expected == nil))
                #expect(verdict.code == expected)
                // The same verdict as the synchronous call.
                #expect(evaluationErrorCode(trust) == expected)
            }
        }
    }
}
