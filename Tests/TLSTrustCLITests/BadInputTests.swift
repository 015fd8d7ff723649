import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// One way to call `evaluate` wrongly: exit 2, one `tlstrust:` line on stderr, no verdict.
struct BadInput: Sendable, CustomTestStringConvertible {
    /// What is wrong, for the test report.
    let name: String
    /// Whether `compare` (which takes no `--backend`) is subject to it too.
    let appliesToCompare: Bool
    /// Builds the arguments (after `evaluate`) in a directory holding a valid `chain.pem` and
    /// `anchors.pem`, and the fragments the error line must contain.
    let make: @Sendable (_ backend: String, _ files: Fixtures, _ pki: TestHierarchy) throws -> (arguments: [String], mentions: [String])

    var testDescription: String { name }

    /// Valid arguments apart from the one thing the case breaks.
    static func valid(_ backend: String, _ files: Fixtures, leaf: String? = nil, anchors: String? = nil) -> [String] {
        ["--backend", backend, "--leaf", leaf ?? files.path("chain.pem"), "--anchors", anchors ?? files.path("anchors.pem")]
    }

    /// A case where `--leaf` names a file with `contents`.
    static func leafFile(_ name: String, _ contents: @escaping @Sendable (TestHierarchy) -> [UInt8]) -> BadInput {
        BadInput(name: "leaf file: \(name)", appliesToCompare: true) { backend, files, pki in
            let path = try files.bytes("bad-leaf", contents(pki))
            return (valid(backend, files, leaf: path), [path])
        }
    }

    /// A case where `--anchors` names a file with `contents`.
    static func anchorsFile(_ name: String, _ contents: @escaping @Sendable (TestHierarchy) -> [UInt8]) -> BadInput {
        BadInput(name: "anchors file: \(name)", appliesToCompare: true) { backend, files, pki in
            let path = try files.bytes("bad-anchors", contents(pki))
            return (valid(backend, files, anchors: path), [path])
        }
    }

    /// A case that only changes the options: `extra` is appended to valid arguments.
    static func option(_ name: String, compare: Bool = true, _ extra: [String], mentions: [String]) -> BadInput {
        BadInput(name: name, appliesToCompare: compare) { backend, files, _ in (valid(backend, files) + extra, mentions) }
    }

    static let all: [BadInput] = [
        // Files that are not there or not files.
        BadInput(name: "missing leaf file", appliesToCompare: true) { backend, files, _ in
            (valid(backend, files, leaf: files.path("no-such-leaf.pem")), ["no-such-leaf.pem"])
        },
        BadInput(name: "missing anchors file", appliesToCompare: true) { backend, files, _ in
            (valid(backend, files, anchors: files.path("no-such-anchors.pem")), ["no-such-anchors.pem"])
        },
        BadInput(name: "missing intermediates file", appliesToCompare: true) { backend, files, _ in
            (valid(backend, files) + ["--intermediates", files.path("no-such-bundle.pem")], ["no-such-bundle.pem"])
        },
        BadInput(name: "a directory as the leaf", appliesToCompare: true) { backend, files, _ in
            let directory = try files.directory("leaf-dir")
            return (valid(backend, files, leaf: directory), [directory, "directory"])
        },
        BadInput(name: "a directory as the anchors", appliesToCompare: true) { backend, files, _ in
            let directory = try files.directory("anchors-dir")
            return (valid(backend, files, anchors: directory), [directory, "directory"])
        },

        // Files that hold no usable certificate.
        leafFile("empty") { _ in [] },
        anchorsFile("empty") { _ in [] },
        anchorsFile("whitespace only") { _ in Array(" \n\t\r\n".utf8) },
        leafFile("private key PEM, no certificate") { Array($0.leaf.privateKey.pkcs8PEM.utf8) },
        anchorsFile("private key PEM, no certificate") { Array($0.root.privateKey.pkcs8PEM.utf8) },
        anchorsFile("public key PEM, no certificate") { pki in
            Array(pki.root.certificate.publicKey.pemEncoded.utf8)
        },
        leafFile("private key DER") { $0.leaf.privateKey.pkcs8DER },
        leafFile("truncated PEM (no END line)") { pki in
            let pem = Array(pki.leaf.pem.utf8)
            return Array(pem.prefix(pem.count / 2))
        },
        anchorsFile("truncated PEM (no END line)") { pki in
            let pem = Array(pki.root.pem.utf8)
            return Array(pem.prefix(pem.count - 30))
        },
        leafFile("PEM with corrupt base64") { pki in
            var lines = pki.leaf.pem.split(separator: "\n").map(String.init)
            lines[2] = "!!!!" + lines[2].dropFirst(4)
            return Array(lines.joined(separator: "\n").utf8)
        },
        leafFile("PEM armour around bytes that are not a certificate") { _ in
            // Deliberately timeless: the base64 decodes to "Not a certificate at all.", never a certificate.
            Array("-----BEGIN CERTIFICATE-----\nTm90IGEgY2VydGlmaWNhdGUgYXQgYWxsLg==\n-----END CERTIFICATE-----\n".utf8)
        },
        leafFile("truncated DER") { pki in Array(pki.leaf.der.prefix(pki.leaf.der.count / 2)) },
        anchorsFile("truncated DER") { pki in Array(pki.root.der.dropLast(1)) },
        leafFile("DER with trailing bytes") { pki in pki.leaf.der + [0x00, 0x01, 0x02] },
        leafFile("garbage bytes") { _ in (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) } },
        leafFile("garbage starting like DER") { _ in [0x30, 0x82, 0xFF, 0xFF] + Array(repeating: 0x41, count: 64) },
        leafFile("text that is not PEM") { _ in Array("hello, I am not a certificate\n".utf8) },
        BadInput(name: "intermediates file: garbage", appliesToCompare: true) { backend, files, _ in
            // Deliberately malformed and timeless: a BEGIN line with no END and no certificate.
            let path = try files.bytes("bad-intermediates", Array("-----BEGIN CERTIFICATE-----\nAAAA\n".utf8))
            return (valid(backend, files) + ["--intermediates", path], [path])
        },

        // Usage errors (ArgumentParser's exit 64 must become 2).
        BadInput(name: "unknown backend", appliesToCompare: false) { _, files, _ in
            (valid("no-such-backend", files), ["no-such-backend"] + (try ToolRunner.backendNames()))
        },
        BadInput(name: "missing --backend", appliesToCompare: false) { _, files, _ in
            (["--leaf", files.path("chain.pem"), "--anchors", files.path("anchors.pem")], ["--backend"])
        },
        BadInput(name: "missing --leaf", appliesToCompare: true) { backend, files, _ in
            (["--backend", backend, "--anchors", files.path("anchors.pem")], ["--leaf"])
        },
        BadInput(name: "--leaf without a value", appliesToCompare: true) { backend, _, _ in
            (["--backend", backend, "--leaf"], ["--leaf"])
        },
        option("invalid --purpose", ["--purpose", "email"], mentions: ["email", "--purpose"]),
        option("negative --max-chain-depth (=)", ["--max-chain-depth=-1"], mentions: ["--max-chain-depth"]),
        option("negative --max-chain-depth (separate)", ["--max-chain-depth", "-1"], mentions: ["--max-chain-depth"]),
        option("non-integer --max-chain-depth", ["--max-chain-depth", "two"], mentions: ["--max-chain-depth"]),
        option("non-integer --time", ["--time", "yesterday"], mentions: ["yesterday", "--time"]),
        option("fractional --time", ["--time", "1700000000.5"], mentions: ["--time"]),
        option("ISO 8601 --time", ["--time", "2024-01-01T00:00:00Z"], mentions: ["--time"]),
        option("--time beyond Int64 seconds", ["--time", "99999999999999999999"], mentions: ["--time"]),
        option("--time beyond year 9999", ["--time", "9223372036854775807"], mentions: ["--time"]),
        option("--time before year 1", ["--time=-9223372036854775808"], mentions: ["--time"]),
        option("empty --hostname", ["--hostname", ""], mentions: ["--hostname"]),
        option("unknown flag", ["--frobnicate"], mentions: ["--frobnicate"]),
        option("unexpected positional argument", ["stray-argument"], mentions: ["stray-argument"]),
    ]
}

/// Bad usage and unreadable input: exit 2 with one clear line on stderr, never a stack trace,
/// never a verdict (`CLI-CONTRACT.md`).
@Suite("bad input and bad usage")
struct BadInputTests {
    @Test("evaluate refuses bad input with exit 2", arguments: try ToolRunner.backendNames(), BadInput.all)
    func evaluate(backend: String, input: BadInput) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            _ = try files.pem("chain.pem", pki.chain)
            _ = try files.pem("anchors.pem", [pki.root])
            let (arguments, mentions) = try input.make(backend, files, pki)
            // The same valid files with the flag removed are fine, so the failure is the bad input's.
            try ToolRunner.run(["evaluate", "--json"] + arguments).expectUsageError(mentioning: mentions, json: true)
            try ToolRunner.run(["evaluate"] + arguments).expectUsageError(mentioning: mentions)
        }
    }

    @Test("the valid inputs the bad-input cases start from are trusted", arguments: try ToolRunner.backendNames())
    func baseline(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            _ = try files.pem("chain.pem", pki.chain)
            _ = try files.pem("anchors.pem", [pki.root])
            try ToolRunner.run(["evaluate"] + BadInput.valid(backend, files)).expectTrusted()
        }
    }

    @Test("compare refuses bad input with exit 2", arguments: BadInput.all.filter(\.appliesToCompare))
    func compare(input: BadInput) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            _ = try files.pem("chain.pem", pki.chain)
            _ = try files.pem("anchors.pem", [pki.root])
            let made = try input.make("(compare takes no backend)", files, pki)
            var arguments = made.arguments
            if let index = arguments.firstIndex(of: "--backend") { arguments.removeSubrange(index...(index + 1)) }
            try ToolRunner.run(["compare"] + arguments).expectUsageError(mentioning: made.mentions)
        }
    }

    @Test("usage errors outside evaluate also exit 2", arguments: [
        ["frobnicate"],
        ["evaluate"],
        ["compare"],
        ["pin"],
        ["inspect"],
        ["backends", "--frobnicate"],
        ["backends", "extra-argument"],
        ["demo", "--frobnicate"],
        ["pin", "--frobnicate", "x.pem"],
        ["conformance"],
        ["bench"],
        ["soak"],
    ])
    func otherUsageErrors(arguments: [String]) throws {
        try ToolRunner.run(arguments).expectUsageError()
    }

    @Test("the developer tool's usage errors exit 2 with one line too", arguments: [
        ["frobnicate"],
        ["conformance", "--frobnicate"],
        ["conformance", "--limbo"],
        ["conformance", "stray-argument"],
        ["bench", "--frobnicate"],
        ["soak", "--frobnicate"],
    ])
    func developerUsageErrors(arguments: [String]) throws {
        try ToolRunner.runDeveloper(arguments).expectUsageError()
    }

    /// What `inspect` and `pin` are given that they cannot read.
    static let unreadable: [(String, UnreadableInput)] =
        [UnreadableInput.missing, .empty, .garbageText, .publicKey, .truncatedDER, .directory].map { ("inspect", $0) }
        + [UnreadableInput.missing, .empty, .garbageBytes, .privateKey, .directory, .truncatedPEM].map { ("pin", $0) }

    @Test("inspect and pin: unreadable input exits 2, naming the file", arguments: unreadable)
    func unreadableInput(command: String, kind: UnreadableInput) throws {
        let cert = try TestPKI.issue(.leaf(commonName: "bad.example.com"))
        try withFixtures { files in
            let path = try kind.write(in: files, about: cert)
            try ToolRunner.run([command, path]).expectUsageError(mentioning: [path])
        }
    }
}
