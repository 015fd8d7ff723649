import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `--policy`, `--require-explicit-policy`, `--inhibit-policy-mapping`, `--inhibit-any-policy`,
/// `--email` and `--key-usage` of `tlstrust evaluate`
/// (and `compare`, which shares them), against `CLI-CONTRACT.md`.
@Suite("tlstrust evaluate: certificate policies, e-mail, key usage")
struct PolicyOptionsTests {
    static let p1 = "1.3.6.1.4.1.55555.100.1"
    static let p2 = "1.3.6.1.4.1.55555.100.2"

    /// An intermediate asserting P1 over a leaf named alice@example.com (digitalSignature only)
    /// that asserts `leafPolicies` (none: no certificatePolicies).
    static func pki(leafPolicies: [String]) throws -> TestHierarchy {
        try TestHierarchy.make(leafDNSNames: [], customizeIntermediate: {
            $0.extensions = [.certificatePolicies([p1])]
        }, customizeLeaf: {
            $0.alternativeNames = [.rfc822Name("alice@example.com")]
            $0.keyUsage = .digitalSignature
            if !leafPolicies.isEmpty { $0.extensions = [.certificatePolicies(leafPolicies)] }
        })
    }

    @Test("--policy and --require-explicit-policy decide; --json reports the policy sets",
          arguments: try ToolRunner.backendNames())
    func policies(backend: String) throws {
        let asserted = try Self.pki(leafPolicies: [Self.p1])
        let bare = try Self.pki(leafPolicies: [])
        try withFixtures { files in
            let anchors = try files.pem("anchors.pem", [asserted.root])
            let good = ["evaluate", "--backend", backend, "--leaf", try files.pem("good.pem", asserted.chain), "--anchors", anchors]
            let bareRoot = try files.pem("bare-anchors.pem", [bare.root])
            let none = ["evaluate", "--backend", backend, "--leaf", try files.pem("bare.pem", bare.chain), "--anchors", bareRoot]

            try ToolRunner.run(good + ["--policy", Self.p1, "--require-explicit-policy"]).expectTrusted()
            try ToolRunner.run(good + ["--policy", Self.p2, "--require-explicit-policy"]).expectNotTrusted("certificatePolicyViolated")
            try ToolRunner.run(good + ["--policy", Self.p2, "--policy", Self.p1, "--require-explicit-policy"]).expectTrusted()
            try ToolRunner.run(good + ["--policy", Self.p2]).expectTrusted()  // not required: valid for none of them is fine
            try ToolRunner.run(none).expectTrusted()
            try ToolRunner.run(none + ["--require-explicit-policy"]).expectNotTrusted("certificatePolicyViolated")

            let json = try ToolRunner.run(good + ["--policy", Self.p1, "--policy", Self.p2, "--json"])
            json.expectExit(0)
            let sets = try #require(try json.jsonObject()["certificatePolicies"] as? [String: [String]], "\(json)")
            #expect(sets["authorityConstrained"] == [Self.p1])
            #expect(sets["userConstrained"] == [Self.p1])
            let refused = try ToolRunner.run(good + ["--policy", Self.p2, "--require-explicit-policy", "--json"])
            refused.expectExit(1)
            #expect(try refused.jsonObject()["certificatePolicies"] is NSNull, "absent when not trusted: \(refused)")
        }
    }

    /// An intermediate with `intermediateExtensions` over a leaf asserting `leafPolicy`.
    static func policyChain(intermediateExtensions: [RawExtension], leafPolicy: String) throws -> TestHierarchy {
        try TestHierarchy.make(customizeIntermediate: { $0.extensions = intermediateExtensions },
                               customizeLeaf: { $0.extensions = [.certificatePolicies([leafPolicy])] })
    }

    @Test("--inhibit-policy-mapping: a mapping in the path no longer carries the caller's policy",
          arguments: try ToolRunner.backendNames())
    func inhibitPolicyMapping(backend: String) throws {
        // The intermediate asserts P1 and maps it to P2, which the leaf asserts.
        let pki = try Self.policyChain(intermediateExtensions: [.certificatePolicies([Self.p1]), .policyMappings([(Self.p1, Self.p2)])],
                                       leafPolicy: Self.p2)
        try withFixtures { files in
            let common = try files.evaluate(backend, pki) + ["--policy", Self.p1, "--require-explicit-policy"]
            try ToolRunner.run(common).expectTrusted()
            try ToolRunner.run(common + ["--inhibit-policy-mapping"]).expectNotTrusted("certificatePolicyViolated")
            // Without an explicit policy the path is valid for no policy, which is allowed.
            try ToolRunner.run(Array(common.dropLast()) + ["--inhibit-policy-mapping"]).expectTrusted()
        }
    }

    @Test("--inhibit-any-policy: an intermediate's anyPolicy no longer covers the leaf's policy",
          arguments: try ToolRunner.backendNames())
    func inhibitAnyPolicy(backend: String) throws {
        let pki = try Self.policyChain(intermediateExtensions: [.certificatePolicies([CertificatePolicyInputs.anyPolicy])],
                                       leafPolicy: Self.p1)
        try withFixtures { files in
            let common = try files.evaluate(backend, pki) + ["--policy", Self.p1, "--require-explicit-policy"]
            try ToolRunner.run(common).expectTrusted()
            try ToolRunner.run(common + ["--inhibit-any-policy"]).expectNotTrusted("certificatePolicyViolated")
            let json = try ToolRunner.run(common + ["--inhibit-any-policy", "--json"])
            json.expectExit(1)
            #expect(try json.jsonObject()["certificatePolicies"] is NSNull, "absent when not trusted: \(json)")
        }
    }

    @Test("--email and --key-usage decide", arguments: try ToolRunner.backendNames())
    func emailAndKeyUsage(backend: String) throws {
        let pki = try Self.pki(leafPolicies: [])
        try withFixtures { files in
            let common = try files.evaluate(backend, pki)
            try ToolRunner.run(common + ["--email", "alice@EXAMPLE.com"]).expectTrusted()
            try ToolRunner.run(common + ["--email", "Alice@example.com"]).expectNotTrusted("emailAddressMismatch")
            try ToolRunner.run(common + ["--key-usage", "digitalSignature"]).expectTrusted()
            try ToolRunner.run(common + ["--key-usage", "digitalSignature", "--key-usage", "keyEncipherment"])
                .expectNotTrusted("invalidKeyUsage")
            // No native verifier can be told a required key usage: exit 2, "unsupported".
            try ToolRunner.run(common + ["--key-usage", "digitalSignature", "--engine", "native"])
                .expectUsageError(mentioning: ["unsupported"])
        }
    }

    @Test("bad usage is exit 2 with one clear line")
    func badUsage() throws {
        let pki = try Self.pki(leafPolicies: [])
        try withFixtures { files in
            let common = try files.evaluate("openssl", pki)
            for oid in ["anyPolicy", "1", "1.2.", "3.1.2", "1.02.3", "1.2.x"] {
                try ToolRunner.run(common + ["--policy", oid]).expectUsageError(mentioning: ["--policy"])
            }
            try ToolRunner.run(common + ["--key-usage", "serverAuth"])
                .expectUsageError(mentioning: ["serverAuth", "digitalSignature", "decipherOnly"])
            try ToolRunner.run(common + ["--email", "alice@example.com", "--hostname", "example.com"])
                .expectUsageError(mentioning: ["--email", "--hostname"])
            for address in ["alice", "alice@@example.com", "\"alice\"@example.com", "alice@example.com."] {
                try ToolRunner.run(common + ["--email", address]).expectUsageError()
            }
            // compare shares the options and their checks.
            try ToolRunner.run(["compare", "--leaf", try files.pem("c.pem", pki.chain), "--policy", "x"])
                .expectUsageError(mentioning: ["--policy"])
        }
    }
}
