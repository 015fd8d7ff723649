import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `--crl`, `--ocsp-response`, `--revocation` and `--allow-fetch` of `tlstrust evaluate` and
/// `tlstrust fetch`, against `CLI-CONTRACT.md`: the tool is spawned, on every backend it lists,
/// with CRLs and OCSP responses minted at test time (`CRLBuilder`, `OCSPResponseBuilder`), a real
/// HTTP server on 127.0.0.1 for fetching and a real `openssl s_server -status_file` for stapling.
/// How the engine judges answers in detail is the engine suites' job (EngineRevocationTests); these
/// check the tool's contract: exit statuses, what the output says, files, defaults, refusals.
@Suite("tlstrust evaluate and fetch: revocation")
struct RevocationOptionsTests {
    /// root → intermediate → leaf for www.example.com, each call a new one.
    static func pki(customizeIntermediate: (inout CertificateProfile) -> Void = { _ in }) throws -> TestHierarchy {
        try TestHierarchy.make(customizeIntermediate: customizeIntermediate)
    }

    /// The intermediate's CRL about the leaf, listing it when `revoking`.
    static func leafCRL(_ pki: TestHierarchy, revoking: Bool) throws -> [UInt8] {
        var builder = try CRLBuilder(issuer: pki.intermediate)
        builder.entries = revoking ? [.init(pki.leaf, reason: .keyCompromise)] : [.init(serialNumber: [0x01, 0x02, 0x03])]
        return try builder.build()
    }

    /// The root's CRL about the intermediate, listing nothing: the intermediate's answer under hard.
    static func rootCRL(_ pki: TestHierarchy) throws -> [UInt8] {
        try CRLBuilder(issuer: pki.root).build()
    }

    /// A CRL as PEM (`-----BEGIN X509 CRL-----`), as `openssl crl` writes it.
    static func pem(_ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString()
        var lines: [String] = []
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN X509 CRL-----\n" + lines.joined(separator: "\n") + "\n-----END X509 CRL-----\n"
    }

    /// Runs `body` off the cooperative pool with a fresh ``pki()``, a fixtures directory and the
    /// `evaluate` arguments of its chain on `backend` (``evaluate(_:_:_:)``), then `extra`.
    static func withChain(_ backend: String, adding extra: [String] = [],
                          _ body: (_ pki: TestHierarchy, _ files: Fixtures, _ common: [String]) throws -> Void) async throws {
        try await offThePool {
            let pki = try Self.pki()
            try withFixtures { files in try body(pki, files, try Self.evaluate(backend, pki, files) + extra) }
        }
    }

    /// `evaluate` of `pki`'s chain for www.example.com on `backend`, anchored at its root.
    static func evaluate(_ backend: String, _ pki: TestHierarchy, _ files: Fixtures) throws -> [String] {
        try files.evaluate(backend, pki) + ["--hostname", testHost]
    }

    /// The `revocation` records of a `--json` run.
    static func records(_ result: ToolResult) throws -> [[String: Any]] {
        try #require(try result.jsonObject()["revocation"] as? [[String: Any]], "no revocation array\n\(result)")
    }

    // MARK: evaluate

    @Test("--crl (PEM and DER) and --ocsp-response decide: revoked is exit 1 naming 'revoked', good is 0; hard without answers is 1",
          arguments: try ToolRunner.backendNames())
    func answersDecide(backend: String) async throws {
        try await Self.withChain(backend) { pki, files, common in
            let revoking = try Self.leafCRL(pki, revoking: true)
            let notListing = try Self.leafCRL(pki, revoking: false)
            try ToolRunner.run(common + ["--crl", try files.bytes("revoking.crl", revoking)]).expectNotTrusted("revoked")
            try ToolRunner.run(common + ["--crl", try files.text("revoking.pem", Self.pem(revoking))]).expectNotTrusted("revoked")
            try ToolRunner.run(common + ["--crl", try files.bytes("clean.crl", notListing)]).expectTrusted()
            try ToolRunner.run(common + ["--crl", try files.text("clean.pem", Self.pem(notListing))]).expectTrusted()
            // One PEM file holding both CRLs: every CRL in it is read.
            let both = try files.text("both.pem", Self.pem(notListing) + Self.pem(try Self.rootCRL(pki)))
            try ToolRunner.run(common + ["--crl", both, "--revocation", "hard"]).expectTrusted()

            let good = try files.bytes("good.ocsp", try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate))
            let revoked = try files.bytes("revoked.ocsp", try TestPKI.ocspResponse(
                for: pki.leaf, issuer: pki.intermediate, status: .revoked(at: Date(timeIntervalSinceNow: -7200), reason: .keyCompromise)))
            try ToolRunner.run(common + ["--ocsp-response", good]).expectTrusted()
            try ToolRunner.run(common + ["--ocsp-response", revoked]).expectNotTrusted("revoked")
            // A revoked answer wins over a good one from another source.
            try ToolRunner.run(common + ["--ocsp-response", revoked, "--crl", try files.path("clean.crl")]).expectNotTrusted("revoked")

            // Hard: every certificate but the anchor needs an answer.
            try ToolRunner.run(common + ["--revocation", "hard"]).expectNotTrusted("revocationStatusUnknown")
            try ToolRunner.run(common + ["--revocation", "hard", "--ocsp-response", good]).expectNotTrusted("revocationStatusUnknown")
            let rootCRL = try files.bytes("root.crl", try Self.rootCRL(pki))
            try ToolRunner.run(common + ["--revocation", "hard", "--ocsp-response", good, "--crl", rootCRL]).expectTrusted()
            try ToolRunner.run(common + ["--revocation", "soft"]).expectTrusted()
        }
    }

    @Test("--json carries the revocation records: status, source, index; revocationStatusUnknown under hard",
          arguments: try ToolRunner.backendNames())
    func jsonRecords(backend: String) async throws {
        try await Self.withChain(backend, adding: ["--json"]) { pki, files, common in
            let revoking = try files.bytes("revoking.crl", try Self.leafCRL(pki, revoking: true))
            let refused = try ToolRunner.run(common + ["--crl", revoking])
            refused.expectExit(1)
            let refusedRecords = try Self.records(refused)
            let leaf = try #require(refusedRecords.first { $0["certificateIndex"] as? Int == 0 }, "\(refused)")
            #expect(leaf["status"] as? String == "revoked" && leaf["source"] as? String == "crl", "\(leaf)")
            #expect(leaf["reason"] as? String != nil && leaf["revocationTime"] as? String != nil, "\(leaf)")
            let failures = try #require(try refused.jsonObject()["failures"] as? [[String: Any]])
            #expect(failures.contains { $0["code"] as? String == "revoked" }, "\(refused)")

            let good = try files.bytes("good.ocsp", try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate))
            let trusted = try ToolRunner.run(common + ["--ocsp-response", good])
            trusted.expectExit(0)
            let trustedRecords = try Self.records(trusted)
            #expect(trustedRecords.contains {
                $0["certificateIndex"] as? Int == 0 && $0["status"] as? String == "good" && $0["source"] as? String == "ocspResponse"
            }, "\(trusted)")
            // Soft: the intermediate has no answer and is judged without one.
            #expect(trustedRecords.contains {
                $0["certificateIndex"] as? Int == 1 && $0["status"] as? String == "unknown" && $0["source"] is NSNull
            }, "\(trusted)")

            let hard = try ToolRunner.run(common + ["--revocation", "hard"])
            hard.expectExit(1)
            let hardFailures = try #require(try hard.jsonObject()["failures"] as? [[String: Any]])
            #expect(hardFailures.contains { $0["code"] as? String == "revocationStatusUnknown" }, "\(hard)")
            #expect(try Self.records(hard).contains { $0["certificateIndex"] as? Int == 0 && $0["status"] as? String == "unknown" }, "\(hard)")
        }
    }

    @Test("The default mode: soft when an answer is given, off otherwise; --revocation off beside an answer is refused",
          arguments: try ToolRunner.backendNames())
    func defaults(backend: String) async throws {
        try await Self.withChain(backend, adding: ["--json"]) { pki, files, common in
            // Off: nothing is consulted, no records.
            let off = try ToolRunner.run(common)
            off.expectExit(0)
            #expect(try Self.records(off).isEmpty, "revocation is off by default\n\(off)")
            let hardNoAnswer = try ToolRunner.run(common + ["--revocation", "hard"])
            hardNoAnswer.expectExit(1)
            // Soft with an answer: consulted (records), and the intermediate without one tolerated.
            let clean = try files.bytes("clean.crl", try Self.leafCRL(pki, revoking: false))
            let soft = try ToolRunner.run(common + ["--crl", clean])
            soft.expectExit(0)
            #expect(try Self.records(soft).contains { $0["status"] as? String == "good" && $0["source"] as? String == "crl" }, "\(soft)")
            // The default with an answer is soft, not hard: the same run with hard is refused.
            try ToolRunner.run(Array(common.dropLast()) + ["--crl", clean, "--revocation", "hard"]).expectNotTrusted("revocationStatusUnknown")

            let plain = Array(common.dropLast())
            let good = try files.bytes("good.ocsp", try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate))
            try ToolRunner.run(plain + ["--revocation", "off", "--crl", clean]).expectUsageError(mentioning: ["--crl", "--revocation off"])
            try ToolRunner.run(plain + ["--revocation", "off", "--ocsp-response", good]).expectUsageError(mentioning: ["--ocsp-response"])
            // Off with --allow-fetch fetches only missing issuers: accepted, and this chain needs none.
            try ToolRunner.run(plain + ["--revocation", "off", "--allow-fetch"]).expectTrusted()
            try ToolRunner.run(plain + ["--revocation", "sometimes"]).expectUsageError(mentioning: ["--revocation"])
        }
    }

    @Test("Unreadable answers are bad input: exit 2, one line naming the file", arguments: try ToolRunner.backendNames())
    func badFiles(backend: String) async throws {
        try await Self.withChain(backend) { pki, files, common in
            let good = try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate)
            let crl = try Self.leafCRL(pki, revoking: false)
            let cases: [(flag: String, path: String)] = [
                ("--crl", try files.bytes("truncated.crl", Array(crl.prefix(crl.count / 2)))),
                ("--crl", try files.text("garbage.crl", "this is not a CRL\n")),
                ("--crl", try files.text("empty-pem.crl", "-----BEGIN X509 CRL-----\n-----END X509 CRL-----\n")),
                ("--crl", try files.pem("a-certificate.pem", [pki.leaf])),
                ("--ocsp-response", try files.bytes("truncated.ocsp", Array(good.prefix(good.count - 7)))),
                ("--ocsp-response", try files.text("garbage.ocsp", "this is not an OCSP response\n")),
                ("--ocsp-response", try files.bytes("a-crl.ocsp", crl)),
                ("--crl", files.path("missing.crl")),
                ("--ocsp-response", files.path("missing.ocsp")),
            ]
            for (flag, path) in cases {
                let result = try ToolRunner.run(common + [flag, path])
                result.expectUsageError(mentioning: [(path as NSString).lastPathComponent])
                try ToolRunner.run(common + [flag, path, "--json"]).expectUsageError(json: true)
            }
        }
    }

    @Test("--allow-fetch fetches the leaf's CRL from its distribution point; without it nothing is requested",
          arguments: try ToolRunner.backendNames())
    func allowFetch(backend: String) async throws {
        try await offThePool {
            let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
            let intermediate = try TestPKI.issue(TestHierarchy.intermediateProfile(), issuer: root)
            let serial: [UInt8] = [0x01] + Array("cli-fetch-leaf".utf8)
            var revoking = try CRLBuilder(issuer: intermediate)
            revoking.entries = [.init(serialNumber: serial)]
            let clean = try CRLBuilder(issuer: intermediate)
            let server = try LocalHTTPServer(routes: [
                "/revoking.crl": .ok(try revoking.build(), contentType: "application/pkix-crl"),
                "/clean.crl": .ok(try clean.build(), contentType: "application/pkix-crl"),
            ])
            defer { server.stop() }
            func leaf(_ path: String) throws -> TestCertificate {
                var profile = CertificateProfile.leaf(commonName: testHost, dnsNames: [testHost])
                    .withRevocationPointers(crlURLs: [server.url(path)])
                profile.serialNumber = serial
                return try TestPKI.issue(profile, issuer: intermediate)
            }
            let revokedLeaf = try leaf("/revoking.crl"), cleanLeaf = try leaf("/clean.crl")
            try withFixtures { files in
                let anchors = try files.pem("root.pem", [root])
                func run(_ leaf: TestCertificate, _ name: String, _ extra: [String]) throws -> ToolResult {
                    try ToolRunner.run(["evaluate", "--backend", backend, "--leaf", try files.pem(name, [leaf, intermediate]),
                                        "--anchors", anchors, "--hostname", testHost] + extra)
                }
                // Not allowed: nothing is requested, whatever the mode.
                try run(revokedLeaf, "revoked.pem", []).expectTrusted()
                try run(revokedLeaf, "revoked.pem", ["--revocation", "soft"]).expectTrusted()
                try run(cleanLeaf, "clean.pem", ["--revocation", "hard"]).expectNotTrusted("revocationStatusUnknown")
                #expect(server.requests.isEmpty, "nothing may be fetched without --allow-fetch: \(server.requests.map(\.path))")

                let fetched = try run(cleanLeaf, "clean.pem", ["--allow-fetch", "--json"])
                fetched.expectExit(0)
                #expect(try Self.records(fetched).contains {
                    $0["certificateIndex"] as? Int == 0 && $0["status"] as? String == "good" && $0["source"] as? String == "fetchedCRL"
                }, "\(fetched)")
                try run(revokedLeaf, "revoked.pem", ["--allow-fetch"]).expectNotTrusted("revoked")
                #expect(Set(server.requests.map(\.path)) == ["/clean.crl", "/revoking.crl"], "\(server.requests.map(\.path))")
                #expect(server.requests.allSatisfy { $0.method == "GET" })
            }
        }
    }

    @Test("A terminal escape in a CRL issuer's name never reaches the terminal raw", arguments: try ToolRunner.backendNames())
    func hostileIssuerName(backend: String) async throws {
        try await offThePool {
            let pki = try Self.pki { $0.commonName = "Evil CA \u{1b}[31m red \u{1b}]0;title\u{07}" }
            #expect(pki.intermediate.certificate.subject.description.contains("\u{1b}[31m"), "the factory kept the escape")
            try withFixtures { files in
                let common = try Self.evaluate(backend, pki, files)
                let revoking = try files.bytes("revoking.crl", try Self.leafCRL(pki, revoking: true))
                let clean = try files.bytes("clean.crl", try Self.leafCRL(pki, revoking: false))
                let runs = [
                    try ToolRunner.run(common + ["--crl", revoking]),
                    try ToolRunner.run(common + ["--crl", revoking, "--json"]),
                    try ToolRunner.run(common + ["--crl", clean, "--json"]),
                ]
                runs[0].expectNotTrusted("revoked")
                #expect(runs[0].stdout.contains("\\x1B[31m"), "the name is shown, escaped\n\(runs[0])")
                for run in runs {
                    #expect(!run.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "raw control on stdout\n\(run)")
                    #expect(!run.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "raw control on stderr\n\(run)")
                }
                // The JSON still decodes to the real name (escaped only as JSON escapes).
                let detail = try Self.records(runs[2]).first { $0["certificateIndex"] as? Int == 0 }?["detail"] as? String
                #expect(detail?.contains("\u{1b}[31m") == true, "\(runs[2])")
            }
        }
    }

    // MARK: fetch

    /// Backends whose TLS library cannot ask for a stapled response as a client (mbedTLS 2.28:
    /// docs/tls.md): `fetch` connects without asking and judges without a staple.
    static let nonStaplingBackends: Set<String> = ["mbedtls"]

    @Test("fetch judges a real server's staple: revoked is exit 1 naming 'revoked', good is 0; inspect shows it")
    func fetchStaple() async throws {
        try await offThePool {
            let pki = try TestHierarchy.make()
            let revokedStaple = try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate,
                                                        status: .revoked(at: Date(timeIntervalSinceNow: -7200), reason: .keyCompromise))
            let goodStaple = try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate)
            let backends = try ToolRunner.backendNames(playing: "TLS")
            try withFixtures { files in
                let anchors = try files.pem("root.pem", [pki.root])
                let rootCRL = try files.bytes("root.crl", try Self.rootCRL(pki))
                let revokedFile = try files.bytes("revoked.der", revokedStaple)
                let goodFile = try files.bytes("good.der", goodStaple)
                for (staple, isRevoked) in [(revokedFile, true), (goodFile, false)] {
                    let server = try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate],
                                                                   extraArguments: ["-status_file", staple])
                    defer { server.stop() }
                    let url = "https://\(testHost):\(server.port)/"
                    for backend in backends {
                        let what = "\(backend), \(isRevoked ? "revoked" : "good") staple"
                        let common = ["fetch", url, "--backend", backend, "--anchors", anchors, "--connect-to", "127.0.0.1", "--timeout", "10"]
                        // Hard: the staple answers for the leaf, the root's CRL for the intermediate.
                        let hard = try ToolRunner.run(common + ["--revocation", "hard", "--crl", rootCRL])
                        if Self.nonStaplingBackends.contains(backend) {
                            hard.expectExit(1, "\(what): no staple can be asked for, so hard fails closed")
                            #expect(hard.stderr.contains("revocationStatusUnknown"), "\(what)\n\(hard)")
                            #expect(hard.stderr.contains("cannot ask"), "\(what): says why\n\(hard)")
                        } else if isRevoked {
                            hard.expectExit(1, "\(what)")
                            #expect(hard.stdout.isEmpty, "nothing fetched from a revoked server\n\(hard)")
                            #expect(hard.stderr.contains("not trusted: revoked"), "\(what)\n\(hard)")
                            #expect(hard.stderr.contains("depth 0: revoked (stapled-ocsp-response)"), "\(what)\n\(hard)")
                        } else {
                            hard.expectExit(0, "\(what)")
                            #expect(hard.stdout.hasPrefix("200 "), "\(what)\n\(hard)")
                            #expect(hard.stderr.contains("depth 0: good (stapled-ocsp-response)"), "\(what)\n\(hard)")
                            #expect(hard.stderr.contains("depth 1: good (crl)"), "\(what)\n\(hard)")
                        }
                        // The default (soft): a stapled answer is used as --ocsp-response would be.
                        let soft = try ToolRunner.run(common)
                        if isRevoked && !Self.nonStaplingBackends.contains(backend) {
                            soft.expectExit(1, "\(what), soft")
                            #expect(soft.stderr.contains("revoked"), "\(what), soft\n\(soft)")
                        } else {
                            soft.expectExit(0, "\(what), soft")
                        }
                        // Off: not consulted, so even a revoked staple does not refuse.
                        try ToolRunner.run(common + ["--revocation", "off"]).expectExit(0, "\(what), off")
                    }
                    // inspect asks for the staple too (on the default backend) and shows what it says.
                    let inspect = try ToolRunner.run(["inspect", url, "--anchors", anchors, "--connect-to", "127.0.0.1", "--timeout", "10"])
                    inspect.expectExit(0)
                    #expect(inspect.stdout.contains("depth 0: \(isRevoked ? "revoked" : "good") (stapled-ocsp-response)"), "\(inspect)")
                    if isRevoked { #expect(inspect.stdout.contains("not trusted"), "\(inspect)") }
                }
            }
        }
    }

    @Test("fetch refuses unusable revocation input before connecting: exit 2")
    func fetchBadInput() async throws {
        try await offThePool {
            try withFixtures { files in
                // Nothing listens on this URL: exit 2 shows the files were refused first (else 3).
                let common = ["fetch", "https://127.0.0.1:9/", "--timeout", "2"]
                let garbage = try files.text("garbage.crl", "not a CRL\n")
                try ToolRunner.run(common + ["--crl", garbage]).expectUsageError(mentioning: ["garbage.crl"])
                try ToolRunner.run(common + ["--ocsp-response", garbage]).expectUsageError(mentioning: ["garbage.crl"])
                try ToolRunner.run(common + ["--revocation", "off", "--crl", garbage]).expectUsageError(mentioning: ["--crl"])
            }
        }
    }
}
