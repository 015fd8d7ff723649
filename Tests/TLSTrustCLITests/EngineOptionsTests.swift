import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `--profile`, `--engine` and `--allow-common-name` of `tlstrust evaluate`, against `CLI-CONTRACT.md`.
@Suite("tlstrust evaluate: profile, engine, common name")
struct EngineOptionsTests {
    // MARK: --profile

    @Test("--profile webpki and rfc5280 both trust an ordinary chain; webpki is the default",
          arguments: try ToolRunner.backendNames())
    func profilesTrustAnOrdinaryChain(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let common = try files.evaluate(backend, pki) + ["--hostname", testHost]
            try ToolRunner.run(common).expectTrusted()
            try ToolRunner.run(common + ["--profile", "webpki"]).expectTrusted()
            try ToolRunner.run(common + ["--profile", "rfc5280"]).expectTrusted()
        }
    }

    @Test("a leaf without authorityKeyIdentifier: refused under webpki (the default), trusted under rfc5280",
          arguments: try ToolRunner.backendNames())
    func profileDecidesAStructuralRule(backend: String) throws {
        // Web-PKI verifiers require the AKI in every certificate that is not self-issued; RFC 5280
        // only says "MUST", and private PKIs lacking it are common, so that profile relaxes it.
        let pki = try TestHierarchy.make(customizeLeaf: { $0.includesKeyIdentifiers = false })
        #expect(pki.leaf.certificate.extensions.contains { $0.oid == "2.5.29.35" } == false, "the leaf really has no AKI")
        try withFixtures { files in
            let common = try files.evaluate(backend, pki) + ["--hostname", testHost]
            try ToolRunner.run(common).expectNotTrusted("malformedCertificate")
            try ToolRunner.run(common + ["--profile", "webpki"]).expectNotTrusted("malformedCertificate")
            try ToolRunner.run(common + ["--profile", "rfc5280"]).expectTrusted()

            let json = try ToolRunner.run(common + ["--profile", "rfc5280", "--json"])
            json.expectExit(0)
            #expect(try json.jsonObject()["profile"] as? String == "rfc5280", "\(json)")
            #expect(try json.jsonObject()["engine"] as? String == "core", "\(json)")
        }
    }

    // MARK: --engine

    @Test("--engine core is the default; --engine native gives the library's verdict or exits 2 'unsupported'",
          arguments: try ToolRunner.backendNames())
    func engines(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let common = try files.evaluate(backend, pki)
            try ToolRunner.run(common + ["--engine", "core"]).expectTrusted()
            let defaultJSON = try ToolRunner.run(common + ["--json"])
            #expect(try defaultJSON.jsonObject()["engine"] as? String == "core", "\(defaultJSON)")

            // A backend without a native verifier (a signature provider such as swift-crypto):
            // `unsupported`, exit 2, never a verdict it did not reach.
            guard try ToolRunner.backend(backend, plays: "native verifier") else {
                try ToolRunner.run(common + ["--engine", "native"]).expectUsageError(mentioning: ["unsupported"])
                try ToolRunner.run(common + ["--engine", "native", "--json"]).expectUsageError(mentioning: ["unsupported"], json: true)
                return
            }
            // Without a host name, a purpose or a time, every native verifier can be asked.
            let native = try ToolRunner.run(common + ["--engine", "native", "--json"])
            native.expectExit(0)
            let record = try native.jsonObject()
            #expect(record["engine"] as? String == "native", "\(native)")
            #expect(record["profile"] is NSNull, "the native verifier has no profile\n\(native)")

            // With a host name, either a verdict or a refusal to pretend.
            let withHost = try ToolRunner.run(common + ["--engine", "native", "--hostname", testHost])
            if withHost.status == 2 {
                withHost.expectUsageError(mentioning: ["unsupported"])
            } else {
                withHost.expectTrusted()
            }
        }
    }

    @Test("--engine native --time on mbedtls, whose verifier cannot be given a time: exit 2 'unsupported'")
    func nativeTimeUnsupportedOnMbedTLS() throws {
        try #require(try ToolRunner.backendNames().contains("mbedtls"))
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let common = try files.evaluate("mbedtls", pki) + ["--time", unixTime(fromNow: day)]
            try ToolRunner.run(common + ["--engine", "native"]).expectUsageError(mentioning: ["unsupported", "mbedtls"])
            try ToolRunner.run(common + ["--engine", "native", "--json"]).expectUsageError(mentioning: ["unsupported"], json: true)
            // The engine takes the time on every backend.
            try ToolRunner.run(common).expectTrusted()
        }
    }

    // MARK: --allow-common-name

    @Test("a leaf naming the host only in its common name: refused by default, trusted with --allow-common-name",
          arguments: try ToolRunner.backendNames())
    func commonNameFallback(backend: String) throws {
        let pki = try TestHierarchy.make(leafDNSNames: [], customizeLeaf: { $0.commonName = testHost })
        #expect(pki.leaf.certificate.dnsNames.isEmpty && pki.leaf.certificate.subject.commonName == testHost)
        try withFixtures { files in
            let common = try files.evaluate(backend, pki)
            try ToolRunner.run(common + ["--hostname", testHost]).expectNotTrusted("hostnameMismatch")
            try ToolRunner.run(common + ["--hostname", testHost, "--allow-common-name"]).expectTrusted()
            // The fallback still needs the name to match.
            try ToolRunner.run(common + ["--hostname", "other.example.com", "--allow-common-name"])
                .expectNotTrusted("hostnameMismatch")
        }
    }

    @Test("--allow-common-name never overrides a SAN: a leaf with DNS SANs is matched by them only",
          arguments: try ToolRunner.backendNames())
    func commonNameIgnoredWhenSANsExist(backend: String) throws {
        let pki = try TestHierarchy.make(leafDNSNames: ["api.example.com"], customizeLeaf: { $0.commonName = testHost })
        try withFixtures { files in
            try ToolRunner.run(try files.evaluate(backend, pki) + ["--hostname", testHost, "--allow-common-name"])
                .expectNotTrusted("hostnameMismatch")
        }
    }

    // MARK: Bad values

    @Test("bad values of the new options exit 2 with one line", arguments: [
        (["--profile", "strict"], ["strict", "--profile"]),
        (["--profile", "WEBPKI"], ["--profile"]),
        (["--profile"], ["--profile"]),
        (["--engine", "openssl"], ["openssl", "--engine"]),
        (["--engine", ""], ["--engine"]),
        (["--allow-common-name"], ["--allow-common-name", "--hostname"]),
        (["--allow-common-name=yes", "--hostname", "www.example.com"], ["--allow-common-name"]),
    ])
    func badValues(extra: [String], mentions: [String]) throws {
        let pki = try TestHierarchy.make()
        let backend = try #require(try ToolRunner.backendNames().first)
        try withFixtures { files in
            let common = try files.evaluate(backend, pki)
            try ToolRunner.run(common + extra).expectUsageError(mentioning: mentions)
        }
    }
}
