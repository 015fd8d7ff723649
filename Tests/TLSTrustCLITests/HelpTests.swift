import Foundation
import Testing

/// `--help` is not an error: exit 0, help on stdout.
@Suite("help")
struct HelpTests {
    @Test("tlstrust --help lists every subcommand and exits 0")
    func rootHelp() throws {
        let result = try ToolRunner.run(["--help"])
        result.expectExit(0)
        #expect(result.stdout.contains("USAGE"), "\(result)")
        for subcommand in ["evaluate", "compare", "pin", "inspect", "backends", "demo"] {
            #expect(result.stdout.contains(subcommand), "\(subcommand) is listed\n\(result)")
        }
        #expect(!result.stderr.contains("tlstrust:"), "\(result)")
    }

    @Test("the user's tool has no developer commands; tlstrust-dev lists them")
    func developerCommandsLiveInTheDeveloperTool() throws {
        let user = try ToolRunner.run(["--help"])
        let developer = try ToolRunner.runDeveloper(["--help"])
        developer.expectExit(0)
        for subcommand in ["bench", "soak", "conformance"] {
            #expect(!user.stdout.contains(subcommand), "\(subcommand) is not in tlstrust\n\(user)")
            #expect(developer.stdout.contains(subcommand), "\(subcommand) is in tlstrust-dev\n\(developer)")
        }
    }

    @Test("tlstrust evaluate --help documents every flag of the contract")
    func evaluateHelp() throws {
        let result = try ToolRunner.run(["evaluate", "--help"])
        result.expectExit(0)
        for flag in ["--backend", "--leaf", "--intermediates", "--anchors", "--with-system-anchors", "--hostname",
                     "--time", "--purpose", "--max-chain-depth", "--profile", "--engine", "--allow-common-name", "--json"] {
            #expect(result.stdout.contains(flag), "\(flag) is documented\n\(result)")
        }
    }

    @Test("tlstrust-dev conformance --help documents its flags and where the suite is looked for")
    func conformanceHelp() throws {
        let result = try ToolRunner.runDeveloper(["conformance", "--help"])
        result.expectExit(0)
        for text in ["--limbo", "TLSTRUST_LIMBO", "--expectations", "--update-expectations", "--write-docs", "--check-docs"] {
            #expect(result.stdout.contains(text), "\(text) is documented\n\(result)")
        }
    }

    @Test("every command takes --json but demo (a narration for a person), and docs/cli.md documents each one's JSON",
          arguments: [(false, "evaluate"), (false, "compare"), (false, "pin"), (false, "lint"), (false, "inspect"), (false, "fetch"),
                      (false, "backends"), (true, "bench"), (true, "soak"), (true, "conformance")])
    func everyCommandTakesJSON(developer: Bool, command: String) throws {
        let result = developer ? try ToolRunner.runDeveloper([command, "--help"]) : try ToolRunner.run([command, "--help"])
        result.expectExit(0)
        #expect(result.stdout.contains("--json"), "\(result)")
        let heading = "\(developer ? "tlstrust-dev" : "tlstrust") \(command) --json"
        #expect(try !DocumentedJSON(heading).fields.isEmpty, "docs/cli.md documents \(heading)")
    }

    @Test("demo has no --json, and the docs say why")
    func demoHasNoJSON() throws {
        let help = try ToolRunner.run(["demo", "--help"])
        #expect(!help.stdout.contains("--json"), "\(help)")
        let docs = try String(contentsOf: DocumentedJSON.docsURL, encoding: .utf8)
        #expect(docs.contains("`tlstrust demo` has no `--json`"))
    }

    @Test("-h and help SUBCOMMAND exit 0 too", arguments: [["-h"], ["help"], ["help", "evaluate"], ["pin", "--help"], ["compare", "-h"],
                                                           ["help", "demo"]])
    func otherHelpSpellings(arguments: [String]) throws {
        let result = try ToolRunner.run(arguments)
        result.expectExit(0)
        #expect(result.stdout.contains("USAGE"), "\(result)")
    }
}
