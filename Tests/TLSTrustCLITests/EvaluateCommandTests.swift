import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust evaluate`, run as a child process, against `CLI-CONTRACT.md`: inputs in every form
/// the contract allows, and the verdict in the exit status (0 trusted, 1 not trusted).
@Suite("tlstrust evaluate")
struct EvaluateCommandTests {
    // MARK: Verdicts

    @Test("a valid chain with --anchors and --hostname is trusted (exit 0)", arguments: try ToolRunner.backendNames())
    func validChain(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run([
                "evaluate", "--backend", backend,
                "--leaf", try files.pem("leaf.pem", [pki.leaf]),
                "--intermediates", try files.pem("intermediates.pem", [pki.intermediate]),
                "--anchors", try files.pem("anchors.pem", [pki.root]),
                "--hostname", testHost,
            ])
            result.expectTrusted()
            #expect(result.stdout.contains("CN=\(testHost)"), "the verdict names the leaf\n\(result)")
            #expect(result.stdout.contains("[\(backend)]"), "the verdict names the backend\n\(result)")
        }
    }

    @Test("every catalogue scenario reaches its expected verdict through the CLI, the same on every backend",
          arguments: TestScenario.Kind.allCases)
    func scenarioVerdict(kind: TestScenario.Kind) throws {
        let scenario = try TestScenario.make(kind)
        try TemporaryDirectory.with { directory in
            let written = try scenario.writeFiles(in: directory)
            // backend → "trusted", the primary failure code, or "unsupported".
            var verdicts: [String: String] = [:]
            for backend in try ToolRunner.backendNames() {
                var arguments = ["evaluate", "--backend", backend, "--leaf", written.chain.path, "--anchors", written.anchors.path]
                // The scenario's policy is the SSL server policy: with a host name that is the default purpose.
                arguments += scenario.hostname.map { ["--hostname", $0] } ?? ["--purpose", "server"]
                let result = try ToolRunner.run(arguments)
                if result.status == 2 {
                    // A backend that cannot verify an algorithm says so; that is not a verdict.
                    result.expectUsageError(mentioning: ["unsupported", backend])
                    verdicts[backend] = "unsupported"
                    continue
                }
                switch scenario.expectation {
                case .trusted:
                    result.expectTrusted()
                    verdicts[backend] = "trusted"
                case .rejected(let code):
                    result.expectExit(1)
                    #expect(result.stdoutLines.count == 1 && result.stdout.hasPrefix("not trusted"), "\(result)")
                    // The scenario's reason is among the failures (the primary one may be a more
                    // fundamental rule of the profile, e.g. a CA without basicConstraints is malformed
                    // under webpki before it is "not a CA").
                    let json = try ToolRunner.run(arguments + ["--json"])
                    json.expectExit(1)
                    let failures = (try json.jsonObject()["failures"] as? [[String: Any]]) ?? []
                    let codes = failures.compactMap { $0["code"] as? String }
                    #expect(codes.contains(code.identifier), "\(code) is among the failures on \(backend)\n\(json)")
                    #expect(result.stdout.words.contains(codes.first ?? "?"), "the line names the primary failure\n\(result)")
                    verdicts[backend] = codes.first ?? "?"
                }
            }
            let given = Set(verdicts.values.filter { $0 != "unsupported" })
            #expect(!given.isEmpty, "at least one backend can evaluate \(kind): \(verdicts)")
            #expect(given.count <= 1, "the engine decides alike on every backend: \(verdicts)")
        }
    }

    @Test("a leaf file holding several PEM certificates: the first is the leaf, the rest join the intermediates",
          arguments: try ToolRunner.backendNames())
    func leafFileBundle(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let anchors = try files.pem("anchors.pem", [pki.root])
            let common = ["evaluate", "--backend", backend, "--anchors", anchors, "--hostname", testHost]

            // Alone, the leaf cannot reach the root: the intermediate is missing.
            try ToolRunner.run(common + ["--leaf", try files.pem("leaf.pem", [pki.leaf])])
                .expectNotTrusted("unknownIssuer")
            // Leaf first, intermediate after it in the same file: the intermediate completes the path.
            try ToolRunner.run(common + ["--leaf", try files.pem("chain.pem", [pki.leaf, pki.intermediate])])
                .expectTrusted()

            // Intermediate first: it is the certificate evaluated, and it does not name the host.
            let reversed = try ToolRunner.run(
                common + ["--leaf", try files.pem("reversed.pem", [pki.intermediate, pki.leaf]), "--json"])
            reversed.expectExit(1)
            let chain = try #require(try reversed.jsonObject()["chain"] as? [[String: Any]])
            #expect((chain.first?["subject"] as? String)?.contains(TestHierarchy.intermediateName) == true, "\(reversed)")
        }
    }

    @Test("--intermediates as a PEM bundle in any order, with unrelated certificates mixed in",
          arguments: try ToolRunner.backendNames())
    func intermediatesBundleWithUnrelatedCertificates(backend: String) throws {
        let pki = try TestHierarchy.make()
        let strangerCA = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Unrelated CA"))
        let stray = try TestPKI.issue(.leaf(commonName: "stray.example.net", dnsNames: ["stray.example.net"]), issuer: strangerCA)
        try withFixtures { files in
            let result = try ToolRunner.run([
                "evaluate", "--backend", backend,
                "--leaf", try files.pem("leaf.pem", [pki.leaf]),
                "--intermediates", try files.pem("bundle.pem", [stray, strangerCA, pki.intermediate]),
                "--anchors", try files.pem("anchors.pem", [pki.root]),
                "--hostname", testHost,
            ])
            result.expectTrusted()
        }
    }

    @Test("DER files for the leaf, the intermediates and the anchors", arguments: try ToolRunner.backendNames())
    func derFiles(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let leaf = try files.der("leaf.der", pki.leaf)
            let intermediate = try files.der("intermediate.cer", pki.intermediate)
            let root = try files.der("root.der", pki.root)
            try ToolRunner.run([
                "evaluate", "--backend", backend, "--leaf", leaf, "--intermediates", intermediate,
                "--anchors", root, "--hostname", testHost,
            ]).expectTrusted()
            // DER and PEM mixed.
            try ToolRunner.run([
                "evaluate", "--backend", backend, "--leaf", leaf,
                "--intermediates", try files.pem("intermediate.pem", [pki.intermediate]),
                "--anchors", root, "--hostname", testHost,
            ]).expectTrusted()
            // The DER anchor really is what is trusted: another root in DER is refused.
            let stranger = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Unrelated Root CA"))
            try ToolRunner.run([
                "evaluate", "--backend", backend, "--leaf", leaf, "--intermediates", intermediate,
                "--anchors", try files.der("stranger.der", stranger), "--hostname", testHost,
            ]).expectNotTrusted("unknownIssuer")
        }
    }

    @Test("--anchors holding a non-self-signed certificate (the intermediate) ends the path there",
          arguments: try ToolRunner.backendNames())
    func intermediateAsAnchor(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run([
                "evaluate", "--backend", backend,
                "--leaf", try files.pem("leaf.pem", [pki.leaf]),
                "--anchors", try files.pem("intermediate.pem", [pki.intermediate]),
                "--hostname", testHost, "--json",
            ])
            result.expectExit(0)
            let json = try result.jsonObject()
            #expect(json["trusted"] as? Bool == true, "\(result)")
            let chain = try #require(json["chain"] as? [[String: Any]])
            #expect(chain.compactMap { $0["sha256Fingerprint"] as? String }
                    == [pki.leaf, pki.intermediate].map(\.certificate.sha256FingerprintHex), "\(result)")
        }
    }

    // MARK: --hostname with IP literals

    @Test("--hostname with IPv4 and IPv6 literals is matched against IP SANs", arguments: try ToolRunner.backendNames())
    func ipLiterals(backend: String) throws {
        let pki = try TestHierarchy.make(leafDNSNames: [testHost], leafIPAddresses: ["10.0.0.1", "2001:db8::1"])
        try withFixtures { files in
            let common = [
                "evaluate", "--backend", backend,
                "--leaf", try files.pem("chain.pem", pki.chain), "--anchors", try files.pem("anchors.pem", [pki.root]),
            ]
            for host in ["10.0.0.1", "2001:db8::1", "2001:DB8:0:0:0:0:0:1", testHost] {
                try ToolRunner.run(common + ["--hostname", host]).expectTrusted()
            }
            for host in ["10.0.0.2", "::1", "2001:db8::2"] {
                try ToolRunner.run(common + ["--hostname", host]).expectNotTrusted("ipAddressMismatch")
            }
        }
    }

    @Test("an IP literal never matches a DNS SAN or the common name spelling the same address",
          arguments: try ToolRunner.backendNames())
    func ipLiteralsIgnoreDNSNames(backend: String) throws {
        // DNS SANs that spell IP addresses, and no IP SAN at all.
        let spelled = try TestHierarchy.make(leafDNSNames: ["10.0.0.1", "2001:db8::1"])
        // No SAN at all, the address only in the common name.
        let commonNameOnly = try TestHierarchy.make(leafDNSNames: [], customizeLeaf: { $0.commonName = "10.0.0.1" })
        try withFixtures { files in
            for (name, pki) in [("spelled", spelled), ("cn", commonNameOnly)] {
                let common = [
                    "evaluate", "--backend", backend,
                    "--leaf", try files.pem("\(name)-chain.pem", pki.chain),
                    "--anchors", try files.pem("\(name)-anchors.pem", [pki.root]),
                ]
                try ToolRunner.run(common + ["--hostname", "10.0.0.1"]).expectNotTrusted("ipAddressMismatch")
                if name == "spelled" {
                    try ToolRunner.run(common + ["--hostname", "2001:db8::1"]).expectNotTrusted("ipAddressMismatch")
                }
            }
        }
    }

    // MARK: --time

    @Test("--time before or after the validity period flips a valid chain to not trusted",
          arguments: try ToolRunner.backendNames())
    func timeOutsideValidity(backend: String) throws {
        // Every certificate is valid from one hour ago; the leaf for 30 days.
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let common = try files.evaluate(backend, pki) + ["--hostname", testHost]
            try ToolRunner.run(common).expectTrusted()
            try ToolRunner.run(common + ["--time", unixTime(fromNow: day)]).expectTrusted()
            try ToolRunner.run(common + ["--time", unixTime(fromNow: -2 * day)]).expectNotTrusted("notYetValid")
            try ToolRunner.run(common + ["--time", unixTime(fromNow: 60 * day)]).expectNotTrusted("expired")
        }
    }

    @Test("--time inside the validity period makes an expired or not-yet-valid leaf trusted",
          arguments: try ToolRunner.backendNames())
    func timeInsideValidity(backend: String) throws {
        let oldCAs: (inout CertificateProfile) -> Void = { $0.notBefore = Date(timeIntervalSinceNow: -90 * day) }
        let expired = try TestHierarchy.make(customizeRoot: oldCAs, customizeIntermediate: oldCAs, customizeLeaf: {
            $0.notBefore = Date(timeIntervalSinceNow: -30 * day)
            $0.notAfter = Date(timeIntervalSinceNow: -day)
        })
        let future = try TestHierarchy.make(customizeLeaf: {
            $0.notBefore = Date(timeIntervalSinceNow: day)
            $0.notAfter = Date(timeIntervalSinceNow: 30 * day)
        })
        try withFixtures { files in
            func evaluate(_ pki: TestHierarchy, _ name: String, _ extra: [String]) throws -> ToolResult {
                try ToolRunner.run([
                    "evaluate", "--backend", backend, "--leaf", try files.pem("\(name).pem", pki.chain),
                    "--anchors", try files.pem("\(name)-root.pem", [pki.root]), "--hostname", testHost,
                ] + extra)
            }
            try evaluate(expired, "expired", []).expectNotTrusted("expired")
            try evaluate(expired, "expired", ["--time", unixTime(fromNow: -15 * day)]).expectTrusted()
            try evaluate(future, "future", []).expectNotTrusted("notYetValid")
            try evaluate(future, "future", ["--time", unixTime(fromNow: 2 * day)]).expectTrusted()
        }
    }

    // MARK: --purpose

    @Test("--purpose server|client|any, and the default: server with --hostname, otherwise any",
          arguments: try ToolRunner.backendNames())
    func purpose(backend: String) throws {
        let clientOnly = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] })
        let serverOnly = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.serverAuth] })
        let noEKU = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = nil })
        try withFixtures { files in
            func evaluate(_ pki: TestHierarchy, _ name: String, _ extra: [String]) throws -> ToolResult {
                try ToolRunner.run([
                    "evaluate", "--backend", backend, "--leaf", try files.pem("\(name).pem", pki.chain),
                    "--anchors", try files.pem("\(name)-root.pem", [pki.root]),
                ] + extra)
            }
            let host = ["--hostname", testHost]

            // clientAuth-only leaf
            try evaluate(clientOnly, "client", host).expectNotTrusted("purposeNotAllowed")  // default: server
            try evaluate(clientOnly, "client", []).expectTrusted()  // default without a host: any
            try evaluate(clientOnly, "client", ["--purpose", "server"]).expectNotTrusted("purposeNotAllowed")
            try evaluate(clientOnly, "client", ["--purpose", "client"]).expectTrusted()
            try evaluate(clientOnly, "client", host + ["--purpose", "client"]).expectTrusted()
            try evaluate(clientOnly, "client", host + ["--purpose", "any"]).expectTrusted()

            // serverAuth-only leaf
            try evaluate(serverOnly, "server", host).expectTrusted()
            try evaluate(serverOnly, "server", ["--purpose", "client"]).expectNotTrusted("purposeNotAllowed")
            try evaluate(serverOnly, "server", host + ["--purpose", "client"]).expectNotTrusted("purposeNotAllowed")
            try evaluate(serverOnly, "server", ["--purpose", "any"]).expectTrusted()

            // No EKU extension satisfies every purpose.
            for purpose in ["server", "client", "any"] {
                try evaluate(noEKU, "none", host + ["--purpose", purpose]).expectTrusted()
            }
        }
    }

    // MARK: --max-chain-depth

    @Test("--max-chain-depth N allows at most N intermediates between leaf and anchor",
          arguments: try ToolRunner.backendNames())
    func maxChainDepth(backend: String) throws {
        let long = try TestScenario.longChain(intermediates: 3)
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let longArgs = [
                "evaluate", "--backend", backend, "--leaf", try files.pem("long.pem", long.chain),
                "--anchors", try files.pem("long-root.pem", long.anchors), "--hostname", testHost,
            ]
            try ToolRunner.run(longArgs).expectTrusted()
            try ToolRunner.run(longArgs + ["--max-chain-depth", "3"]).expectTrusted()
            try ToolRunner.run(longArgs + ["--max-chain-depth", "10"]).expectTrusted()
            try ToolRunner.run(longArgs + ["--max-chain-depth", "2"]).expectNotTrusted("chainTooLong")
            try ToolRunner.run(longArgs + ["--max-chain-depth", "0"]).expectNotTrusted("chainTooLong")

            let shortArgs = [
                "evaluate", "--backend", backend, "--leaf", try files.pem("short.pem", pki.chain),
                "--anchors", try files.pem("short-root.pem", [pki.root]), "--hostname", testHost,
            ]
            try ToolRunner.run(shortArgs + ["--max-chain-depth", "1"]).expectTrusted()
            try ToolRunner.run(shortArgs + ["--max-chain-depth", "0"]).expectNotTrusted("chainTooLong")

            // Neither the leaf nor the anchor counts: directly under its anchor, depth 0 suffices.
            try ToolRunner.run([
                "evaluate", "--backend", backend, "--leaf", try files.pem("leaf.pem", [pki.leaf]),
                "--anchors", try files.pem("intermediate.pem", [pki.intermediate]), "--hostname", testHost,
                "--max-chain-depth", "0",
            ]).expectTrusted()
        }
    }
}
