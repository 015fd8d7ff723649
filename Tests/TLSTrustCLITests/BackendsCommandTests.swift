import Foundation
import TLSTrustTesting
import Testing

/// `tlstrust backends`: every registered backend with the library version linked at run time.
@Suite("tlstrust backends")
struct BackendsCommandTests {
    @Test("lists openssl (and any other registered backend) with a library version")
    func listsBackends() throws {
        let result = try ToolRunner.run(["backends"])
        result.expectExit(0)
        #expect(result.stderr.isEmpty, "\(result)")
        let rows = BackendsTable(result.stdout).rows
        #expect(rows.contains { $0.name == "openssl" }, "\(result)")
        #expect(Set(rows.map(\.name)).count == rows.count, "names are unique\n\(result)")
        for row in rows {
            #expect(row.name == row.name.lowercased() && !row.name.contains(" "), "registry names are lowercase words\n\(result)")
            let hasDigit = row.library.contains { $0.isNumber }
            #expect(hasDigit, "\(row.name): the library column carries a version\n\(result)")
        }
        #expect(rows.filter(\.isDefault).count == 1, "exactly one default backend\n\(result)")
        let openssl = try #require(rows.first { $0.name == "openssl" })
        #expect(openssl.library.hasPrefix("OpenSSL "), "\(result)")
        #expect(result.stdout.contains("system trust store:"), "\(result)")
        #expect(result.stdout.contains("public suffix list: /usr/share/publicsuffix/public_suffix_list.dat (loaded)"), "\(result)")
    }

    @Test("each backend lists the roles it plays: signatures always; the in-tree libraries all four")
    func listsRoles() throws {
        let result = try ToolRunner.run(["backends"])
        let rows = BackendsTable(result.stdout).rows
        let known: Set<String> = ["signatures", "native verifier", "identities", "TLS"]
        for row in rows {
            #expect(row.roles.contains("signatures"), "\(row.name): every backend is a signature provider\n\(result)")
            #expect(row.roles.isSubset(of: known), "\(row.name): \(row.roles.subtracting(known))\n\(result)")
        }
        for name in ["openssl", "gnutls", "mbedtls"] {
            let row = try #require(rows.first { $0.name == name }, "\(result)")
            #expect(row.roles == known, "\(result)")
        }
        // The tests choose backends by these roles: the listing must agree with them.
        #expect(try ToolRunner.backendNames(playing: "TLS").contains("openssl"))
        #expect(try !ToolRunner.backendNames(playing: "signatures").isEmpty)
    }

    @Test("without the public suffix list it says so, and no wildcard certificate matches (fail closed)")
    func missingSuffixListFailsClosed() throws {
        let pki = try TestHierarchy.make(leafDNSNames: ["*.example.com"])
        try withFixtures { files in
            let leaf = try files.pem("leaf.pem", [pki.leaf, pki.intermediate])
            let anchors = try files.pem("anchors.pem", [pki.root])
            let missing = ["TLSTRUST_PUBLIC_SUFFIX_LIST": "/nonexistent/public_suffix_list.dat"]
            let backends = try ToolRunner.run(["backends"], environment: missing)
            #expect(backends.stdout.contains("/nonexistent/public_suffix_list.dat") && backends.stdout.contains("NOT"), "\(backends)")
            let evaluate = ["evaluate", "--backend", "openssl", "--leaf", leaf, "--anchors", anchors, "--hostname", "www.example.com"]
            try ToolRunner.run(evaluate).expectExit(0, "with the list, the wildcard matches")
            let refused = try ToolRunner.run(evaluate, environment: missing)
            refused.expectExit(1, "without the list, no wildcard matches")
            #expect(refused.stdout.contains("hostnameMismatch"), "\(refused)")
        }
    }

    @Test("names the store it read and how many anchors it holds")
    func reportsTheStore() throws {
        let cas = try (0..<3).map { try TestPKI.issue(.certificateAuthority(commonName: "Store CA \($0)")) }
        try withFixtures { files in
            let bundle = try files.pem("bundle.pem", cas)
            let result = try ToolRunner.run(["backends"], environment: ["SSL_CERT_FILE": bundle, "SSL_CERT_DIR": nil])
            result.expectExit(0)
            #expect(result.stdout.contains("system trust store: \(bundle) (3 anchors)"), "\(result)")
        }
    }

    @Test("the OpenSSL version is the one the openssl tool reports for its library")
    func opensslVersion() throws {
        let rows = BackendsTable(try ToolRunner.run(["backends"]).stdout).rows
        let openssl = try #require(rows.first { $0.name == "openssl" })
        let tool = try ToolRunner.shell("openssl version -a 2>/dev/null | head -1")
        try #require(tool.status == 0, "\(tool)")
        // "OpenSSL 3.0.13 30 Jan 2024 (Library: OpenSSL 3.0.13 30 Jan 2024)": compare the version numbers.
        let number = openssl.library.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        #expect(!number.isEmpty && tool.stdout.contains(number), "tlstrust: \(openssl.library); openssl: \(tool.stdout)")
    }

    @Test("every listed backend is accepted by evaluate --backend, case-insensitively")
    func namesAreUsable() throws {
        for name in try ToolRunner.backendNames() {
            for spelling in [name, name.uppercased()] {
                let result = try ToolRunner.run(["evaluate", "--backend", spelling, "--leaf", "/nonexistent/leaf.pem"])
                // Exit 2 for the missing file, not for the backend name.
                result.expectUsageError(mentioning: ["/nonexistent/leaf.pem"])
                #expect(!result.stderr.contains("unknown backend"), "\(result)")
            }
        }
    }
}
