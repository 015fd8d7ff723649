import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// Answers that help the user fix the problem: each message says what is wrong with what was given.
@Suite("tlstrust: answers that help")
struct HelpfulAnswersTests {
    @Test("a pin failure lists the validated chain's pins, each with its subject, on the one verdict line (as OkHttp does)")
    func pinFailureListsTheChainsPins() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let other = try TestPKI.issue(.leaf(commonName: "other.example.com")).certificate.publicKey.pin
            let result = try ToolRunner.run(["evaluate", "--backend", "gnutls", "--leaf", try files.pem("chain.pem", pki.chain),
                                             "--anchors", try files.pem("root.pem", [pki.root]), "--hostname", testHost, "--pin", other])
            result.expectNotTrusted("pinSetFailed")
            let line = result.stdout
            for certificate in [pki.leaf, pki.intermediate, pki.root] {
                #expect(line.contains("\(certificate.certificate.publicKey.pin) (\(certificate.certificate.subject))"), "\(result)")
            }
            #expect(!line.contains(other), "the failing pin is not offered as the chain's\n\(result)")
        }
    }

    @Test("--timeout: a negative, zero, non-numeric or too large value says what is wrong with it",
          arguments: [("-1", "must be more than 0"), ("0", "must be more than 0"), ("abc", "not a number of seconds"),
                      ("1e9", "at most 600"), ("nan", "not a number of seconds")])
    func timeoutValues(value: String, fragment: String) throws {
        let result = try ToolRunner.run(["fetch", "https://127.0.0.1:1/", "--timeout", value])
        result.expectUsageError(mentioning: ["--timeout", fragment])
        #expect(!result.stderr.contains("Missing value"), "\(result)")
    }

    @Test("a non-ASCII host name is printed escaped once: as given on a terminal, controls escaped once")
    func nonASCIIHostEscapedOnce() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let leaf = try files.pem("chain.pem", pki.chain)
            let plain = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", leaf, "--hostname", "bücher.example"])
            plain.expectUsageError(mentioning: ["'bücher.example'", "A-label"])
            #expect(!plain.stderr.contains("\\u{") && !plain.stderr.contains("\\\\"), "\(plain)")

            let hostile = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", leaf, "--hostname", "b\u{1B}[2Jx.example"])
            hostile.expectUsageError(mentioning: ["'b\\x1B[2Jx.example'"])
            #expect(!hostile.stderr.contains("\\\\x1B"), "escaped once, not twice\n\(hostile)")

            // Under --json, the message carries the name itself: one JSON escape, nothing more.
            let json = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", leaf, "--hostname", "bücher.example", "--json"])
            json.expectUsageError(json: true)
            let message = (try json.jsonObject()["error"] as? [String: Any])?["message"] as? String
            #expect(message?.contains("'bücher.example'") == true, "\(json)")
        }
    }

    @Test("inspect shows a CRL and an OCSP response for what they are, and names a .p12")
    func inspectRecognisesWhatItIsGiven() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            var builder = try CRLBuilder(issuer: pki.intermediate)
            builder.entries = [.init(pki.leaf, reason: .keyCompromise)]
            let der = try builder.build()
            let crl = try files.bytes("leaf.crl", der)
            let pemCRL = try files.text("leaf-crl.pem", RevocationOptionsTests.pem(der))
            let ocsp = try files.bytes("leaf.ocsp", try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate))
            let p12 = try files.bytes("client.p12", try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: "s3cret"))
            let result = try ToolRunner.run(["inspect", crl, pemCRL, ocsp, p12])
            result.expectExit(0)
            #expect(result.stdoutLines.filter { $0.contains("Kind:") && $0.contains("CRL") }.count == 2, "\(result)")
            #expect(result.stdout.contains("Issuer:") && result.stdout.contains("\(pki.intermediate.certificate.subject)"), "\(result)")
            #expect(result.stdout.contains("Entries:     1") || result.stdoutLines.contains { $0.contains("Entries:") && $0.hasSuffix(" 1") }, "\(result)")
            #expect(result.stdoutLines.contains { $0.contains("Kind:") && $0.contains("OCSP response") }, "\(result)")
            #expect(result.stdoutLines.contains { $0.contains("Status:") && $0.hasSuffix("successful") }, "\(result)")
            #expect(result.stdoutLines.contains { $0.contains("Kind:") && $0.contains("PKCS#12") }, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
    }

    @Test("pin given a CRL, an OCSP response, a .p12 or a private key says it needs a certificate or key and what it got")
    func pinNamesWhatItGot() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let crl = try files.bytes("leaf.crl", try CRLBuilder(issuer: pki.intermediate).build())
            let ocsp = try files.bytes("leaf.ocsp", try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate))
            let p12 = try files.bytes("client.p12", try TestPKI.pkcs12(leaf: pki.leaf, chain: [], password: "s3cret"))
            for (file, what) in [(crl, "a CRL"), (ocsp, "an OCSP response"), (p12, "a PKCS#12 archive")] {
                let result = try ToolRunner.run(["pin", file])
                result.expectUsageError(mentioning: [file, "holds \(what)", "not a certificate or a public key"])
            }
        }
    }

    @Test("a broken Info.plist: one short line naming the line and what failed, no NSCocoaErrorDomain dump")
    func brokenPlist() throws {
        try withFixtures { files in
            let plist = try files.text("Info.plist", """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>TSKConfiguration</key><dict>
                <key>TSKPinnedDomains</key><strin>
                </dict></dict></plist>
                """)
            let result = try ToolRunner.run(["lint", plist, "--format", "trustkit"])
            result.expectUsageError(mentioning: ["not a property list", "line 3"])
            #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("UserInfo"), "\(result)")
            #expect(result.stderr.count < 300, "\(result)")
        }
    }

    @Test("compare warns that one-shot timings swing; --repeat shows the median and range")
    func compareTimingNote() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let common = ["compare", "--leaf", try files.pem("chain.pem", pki.chain), "--anchors", try files.pem("root.pem", [pki.root]),
                          "--hostname", testHost]
            let once = try ToolRunner.run(common)
            once.expectExit(0)
            #expect(once.stdoutLines.last?.hasPrefix("timings: one evaluation each") == true && once.stdout.contains("swings"), "\(once)")
            let repeated = try ToolRunner.run(common + ["--repeat", "3"])
            repeated.expectExit(0)
            #expect(repeated.stdoutLines.last?.hasPrefix("timings: median of 3 evaluations") == true, "\(repeated)")
            #expect(repeated.stdoutLines.contains { $0.hasPrefix("openssl") && $0.contains("ms [") }, "\(repeated)")
            try ToolRunner.run(common + ["--repeat", "0"]).expectUsageError(mentioning: ["--repeat"])
        }
    }
}
