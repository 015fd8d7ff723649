import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust evaluate --json`: one JSON object with the verdict, the chain and every failure.
@Suite("tlstrust evaluate --json")
struct EvaluateJSONTests {
    /// `evaluate --json` on `backend` of an expired leaf (``TestScenario/expiredLeaf()``), for `hostname`.
    static func expiredLeafJSON(_ backend: String, hostname: String) throws -> (scenario: TestScenario, result: ToolResult) {
        let scenario = try TestScenario.expiredLeaf()
        let result = try TemporaryDirectory.with { directory in
            let written = try scenario.writeFiles(in: directory)
            return try ToolRunner.run(["evaluate", "--backend", backend, "--json",
                                       "--leaf", written.chain.path, "--anchors", written.anchors.path, "--hostname", hostname])
        }
        return (scenario, result)
    }

    @Test("a trusted chain: trusted, result, the chain leaf→anchor, no failures, the backend",
          arguments: try ToolRunner.backendNames())
    func trusted(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run(try files.evaluate(backend, pki) + ["--json", "--hostname", testHost])
            result.expectExit(0)
            #expect(result.stderr.isEmpty, "\(result)")
            let json = try result.jsonObject()
            #expect(json["trusted"] as? Bool == true)
            #expect(json["result"] as? String == "proceed", "trusted through an anchor given with --anchors")
            #expect(json["backend"] as? String == backend)
            #expect((json["libraryVersion"] as? String)?.isEmpty == false)
            #expect((json["failures"] as? [Any])?.isEmpty == true, "\(result)")

            let chain = try #require(json["chain"] as? [[String: Any]], "\(result)")
            let expected = [pki.leaf, pki.intermediate, pki.root]
            #expect(chain.count == 3, "\(result)")
            #expect(chain.compactMap { $0["sha256Fingerprint"] as? String } == expected.map(\.certificate.sha256FingerprintHex))
            #expect(chain.compactMap { $0["subject"] as? String } == expected.map(\.certificate.subject.description))
            #expect(chain.compactMap { $0["publicKeyPin"] as? String } == expected.map(\.certificate.publicKey.pin))
            #expect((chain.first?["subject"] as? String)?.contains("CN=\(testHost)") == true)
        }
    }

    @Test("a refused chain: trusted false and failures with code, certificateIndex, nativeCode, nativeDescription",
          arguments: try ToolRunner.backendNames())
    func refused(backend: String) throws {
        let (scenario, result) = try Self.expiredLeafJSON(backend, hostname: testHost)
        result.expectExit(1)
        #expect(result.stderr.isEmpty, "\(result)")
        let json = try result.jsonObject()
        #expect(json["trusted"] as? Bool == false)
        #expect(json["result"] as? String == "recoverableTrustFailure", "an expired leaf is recoverable\n\(result)")
        #expect(json["backend"] as? String == backend)
        let chain = try #require(json["chain"] as? [[String: Any]])
        #expect(chain.first?["sha256Fingerprint"] as? String == scenario.leaf.certificate.sha256FingerprintHex)

        let failures = try #require(json["failures"] as? [[String: Any]], "\(result)")
        let first = try #require(failures.first, "\(result)")
        #expect(first["code"] as? String == "expired")
        #expect(first["certificateIndex"] as? Int == 0, "the leaf is at index 0\n\(result)")
        // The library's code, or null when the failure has none (never 0 standing for "none").
        #expect(first["nativeCode"] is NSNull || (first["nativeCode"] as? Int).map { $0 != 0 } == true, "\(result)")
        #expect((first["nativeDescription"] as? String)?.isEmpty == false, "\(result)")
        for failure in failures {
            #expect(Set(failure.keys) == ["code", "certificateIndex", "nativeCode", "nativeDescription"],
                    "every failure has the same four keys (certificateIndex null when not about one certificate)\n\(result)")
        }
    }

    @Test("several failures are all reported, the most fundamental first", arguments: try ToolRunner.backendNames())
    func severalFailures(backend: String) throws {
        // Expired *and* for another host.
        let (_, result) = try Self.expiredLeafJSON(backend, hostname: "www.example.org")
        result.expectExit(1)
        let failures = try #require(try result.jsonObject()["failures"] as? [[String: Any]])
        #expect(failures.compactMap { $0["code"] as? String }.prefix(2) == ["expired", "hostnameMismatch"], "\(result)")
    }

    @Test("trust through the system store is reported as result 'unspecified'", arguments: try ToolRunner.backendNames())
    func systemTrustResult(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let bundle = try files.pem("system.pem", [pki.root])
            let result = try ToolRunner.run(
                ["evaluate", "--backend", backend, "--json", "--leaf", try files.pem("chain.pem", pki.chain), "--hostname", testHost],
                environment: ["SSL_CERT_FILE": bundle])
            result.expectExit(0)
            let json = try result.jsonObject()
            #expect(json["trusted"] as? Bool == true)
            #expect(json["result"] as? String == "unspecified", "\(result)")
        }
    }
}
