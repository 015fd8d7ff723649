import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `--anchors`, `--with-system-anchors` and the system store, with `SSL_CERT_FILE` pointing the
/// child at a bundle this test minted (so the machine's own CA bundle never matters).
@Suite("tlstrust evaluate: system anchors")
struct SystemAnchorsTests {
    @Test("without --anchors the system store named by SSL_CERT_FILE is used", arguments: try ToolRunner.backendNames())
    func systemStoreByDefault(backend: String) throws {
        let pki = try TestHierarchy.make()
        let otherCA = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Other System CA"))
        try withFixtures { files in
            let arguments = ["evaluate", "--backend", backend, "--leaf", try files.pem("chain.pem", pki.chain), "--hostname", testHost]
            let withRoot = try files.pem("system-with-root.pem", [otherCA, pki.root])
            let withoutRoot = try files.pem("system-without-root.pem", [otherCA])

            try ToolRunner.run(arguments, environment: ["SSL_CERT_FILE": withRoot]).expectTrusted()
            try ToolRunner.run(arguments, environment: ["SSL_CERT_FILE": withoutRoot]).expectNotTrusted("unknownIssuer")
            // --with-system-anchors alone means the same as no anchor option.
            try ToolRunner.run(arguments + ["--with-system-anchors"], environment: ["SSL_CERT_FILE": withRoot]).expectTrusted()
        }
    }

    @Test("with --anchors only those are trusted; --with-system-anchors adds the system store back",
          arguments: try ToolRunner.backendNames())
    func anchorsReplaceSystemStore(backend: String) throws {
        let pki = try TestHierarchy.make()
        let otherCA = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust App CA"))
        try withFixtures { files in
            let system = ["SSL_CERT_FILE": try files.pem("system.pem", [pki.root])]
            let arguments = [
                "evaluate", "--backend", backend, "--leaf", try files.pem("chain.pem", pki.chain),
                "--anchors", try files.pem("app-ca.pem", [otherCA]), "--hostname", testHost,
            ]
            // The root is in the system store, but --anchors names only another CA.
            try ToolRunner.run(arguments, environment: system).expectNotTrusted("unknownIssuer")
            try ToolRunner.run(arguments + ["--with-system-anchors"], environment: system).expectTrusted()
            // And with the root neither among the anchors nor in the store, nothing trusts it.
            let empty = ["SSL_CERT_FILE": try files.pem("empty-system.pem", [otherCA])]
            try ToolRunner.run(arguments + ["--with-system-anchors"], environment: empty).expectNotTrusted("unknownIssuer")
        }
    }

    @Test("--with-system-anchors keeps the --anchors too", arguments: try ToolRunner.backendNames())
    func systemAndCustomAnchorsTogether(backend: String) throws {
        let pki = try TestHierarchy.make()
        let otherCA = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Other System CA"))
        try withFixtures { files in
            let result = try ToolRunner.run(
                try files.evaluate(backend, pki) + ["--with-system-anchors", "--hostname", testHost],
                environment: ["SSL_CERT_FILE": try files.pem("system.pem", [otherCA])])
            result.expectTrusted()
        }
    }
}
