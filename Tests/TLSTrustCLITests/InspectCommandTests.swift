import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust inspect FILE…`: a readable summary of each certificate.
@Suite("tlstrust inspect")
struct InspectCommandTests {
    /// The `Label: value` lines of a one-certificate summary.
    static func fields(_ result: ToolResult) -> [String: String] {
        var fields: [String: String] = [:]
        for line in result.stdoutLines where line.hasPrefix("  ") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            fields[key] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    @Test("a leaf: subject, issuer, SANs, not a CA, the pin")
    func leaf() throws {
        let pki = try TestHierarchy.make(leafDNSNames: [testHost, "api.example.com"], leafIPAddresses: ["192.0.2.7", "2001:db8::7"])
        try withFixtures { files in
            let path = try files.pem("leaf.pem", [pki.leaf])
            let result = try ToolRunner.run(["inspect", path])
            result.expectExit(0)
            #expect(result.stderr.isEmpty, "\(result)")
            #expect(result.stdoutLines.first == path, "the summary is headed by the file\n\(result)")
            let fields = Self.fields(result)
            #expect(fields["Subject"]?.contains("CN=\(testHost)") == true, "\(result)")
            #expect(fields["Issuer"]?.contains("CN=\(TestHierarchy.intermediateName)") == true, "\(result)")
            #expect(fields["DNS names"] == "\(testHost), api.example.com", "\(result)")
            #expect(fields["IP addresses"] == "192.0.2.7, 2001:db8::7", "\(result)")
            #expect(fields["Basic constraints"]?.hasPrefix("not a CA") == true, "\(result)")
            let pin = try PinCommandTests.opensslCertificatePin(path)
            #expect(fields["Key pin"] == "sha256/" + pin, "the pin is the openssl pipeline's\n\(result)")
            #expect(fields["SHA-256"] == pki.leaf.certificate.sha256FingerprintHex, "\(result)")
            #expect(fields["Extended key usage"] == "serverAuth, clientAuth", "\(result)")
        }
    }

    @Test("issuance faults are shown as warnings: a CN beside the SANs, a CA certificate naming a host")
    func lintWarnings() throws {
        var leaf = CertificateProfile.leaf(commonName: "127.0.0.1", dnsNames: ["test.localhost"])
        leaf.subject = .commonNameOnly("127.0.0.1")
        var server = CertificateProfile.certificateAuthority(commonName: "pinned.example.com")
        server.dnsNames = ["pinned.example.com"]
        let clean = try TestHierarchy.make(leafDNSNames: [testHost])
        try withFixtures { files in
            let warned = try ToolRunner.run(["inspect", try files.pem("cn.pem", [try TestPKI.issue(leaf)]),
                                             try files.pem("ca.pem", [try TestPKI.issue(server)])])
            warned.expectExit(0)
            #expect(warned.stdoutLines.contains { $0.contains("Warning:") && $0.contains("commonNameNotInSubjectAltName") }, "\(warned)")
            #expect(warned.stdoutLines.contains { $0.contains("Warning:") && $0.contains("leafIsCertificateAuthority") }, "\(warned)")
            let quiet = try ToolRunner.run(["inspect", try files.pem("leaf.pem", [clean.leaf])])
            quiet.expectExit(0)
            #expect(!quiet.stdout.contains("Warning"), "\(quiet)")
        }
    }

    @Test("a CA certificate in DER: the CA flag and the path length")
    func certificateAuthority() throws {
        let ca = try TestPKI.issue(.certificateAuthority(commonName: "Inspect Test CA", keyAlgorithm: .rsa2048, pathLengthConstraint: 1))
        try withFixtures { files in
            let path = try files.der("ca.der", ca)
            let result = try ToolRunner.run(["inspect", path])
            result.expectExit(0)
            let fields = Self.fields(result)
            #expect(fields["Subject"]?.contains("CN=Inspect Test CA") == true, "\(result)")
            #expect(fields["Issuer"] == fields["Subject"], "\(result)")
            #expect(fields["Basic constraints"]?.hasPrefix("CA, path length 1") == true, "\(result)")
            #expect(fields["Public key"] == "RSA 2048", "\(result)")
            #expect(fields["Self-issued"] == "yes", "\(result)")
            #expect(fields["Key pin"] == "sha256/" + (try PinCommandTests.opensslCertificatePin(path, der: true)), "\(result)")
            #expect(fields["DNS names"] == nil, "no SAN, no SAN line\n\(result)")
        }
    }

    @Test("a bundle and several files: one numbered summary per certificate")
    func bundle() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let bundle = try files.pem("chain.pem", [pki.leaf, pki.intermediate])
            let root = try files.pem("root.pem", [pki.root])
            let result = try ToolRunner.run(["inspect", bundle, root])
            result.expectExit(0)
            let headers = result.stdoutLines.filter { !$0.hasPrefix(" ") }
            #expect(headers == ["\(bundle) #1", "\(bundle) #2", root], "\(result)")
            #expect(result.stdoutLines.filter { $0.contains("Subject:") }.count == 3, "\(result)")
        }
    }

    @Test("an expired certificate is flagged")
    func expired() throws {
        var profile = CertificateProfile.leaf(commonName: "old.example.com")
        profile.notBefore = Date(timeIntervalSinceNow: -10 * day)
        profile.notAfter = Date(timeIntervalSinceNow: -day)
        let cert = try TestPKI.issue(profile)
        try withFixtures { files in
            let result = try ToolRunner.run(["inspect", try files.pem("old.pem", [cert])])
            result.expectExit(0)
            #expect(Self.fields(result)["Not after"]?.contains("EXPIRED") == true, "\(result)")
        }
    }
}
