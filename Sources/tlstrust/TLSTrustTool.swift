import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust`: evaluate, compare, pin and inspect certificates from the command line.
///
/// Exit status follows `CLI-CONTRACT.md`: 0 trusted, 1 not trusted, 2 bad usage or unreadable
/// input. ArgumentParser's own usage errors (which it would exit with 64) are folded into 2 here.
@main
struct TLSTrustTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tlstrust",
        abstract: "Certificate-trust evaluation for Linux over OpenSSL, GnuTLS and mbedTLS.",
        // `tlstrust --version`: the tool's name and the package's semantic version on one line
        // (CLI-CONTRACT.md), so that a bug report or a script can say which release it ran.
        version: "tlstrust \(TLSTrustPackage.version)",
        subcommands: [
            EvaluateCommand.self, CompareCommand.self, PinCommand.self, LintCommand.self, InspectCommand.self,
            BackendsCommand.self, DemoCommand.self, FetchCommand.self,
        ]
    )

    static func main() {
        runAsTool(failure: { Diagnostics.fail($0) },
                  usageError: { Diagnostics.fail("\($0) (see '\(helpCommand(CommandLine.arguments))')") })
    }
}

extension TLSTrustTool {
    /// The help that explains a usage error: the subcommand's (`tlstrust evaluate --help`) when the
    /// arguments name one, the tool's otherwise.
    static func helpCommand(_ arguments: [String]) -> String {
        let names = Set(configuration.subcommands.compactMap { $0.configuration.commandName })
        if let sub = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }), names.contains(sub) {
            return "tlstrust \(sub) --help"
        }
        return "tlstrust --help"
    }
}

/// Writes one-line errors to standard error.
enum Diagnostics {
    /// Prints `tlstrust: message` on stderr and exits with 2 (bad usage or unreadable input).
    ///
    /// The message may quote a file name or a library's text about a certificate: it is escaped
    /// (``TerminalText``) after its line breaks become spaces, so it stays one harmless line.
    static func fail(_ message: String) -> Never {
        // With --json, standard output still carries one object, so that a consumer reading it
        // learns of the error instead of meeting an empty stream.
        if CommandLine.arguments.dropFirst().contains("--json") {
            print(EvaluationJSON.usageError(message.replacingOccurrences(of: "\n", with: " ")))
        }
        let line = "tlstrust: " + message.replacingOccurrences(of: "\n", with: " ").terminalSafe + "\n"
        FileHandle.standardError.write(Data(line.utf8))
        Foundation.exit(2)
    }
}
