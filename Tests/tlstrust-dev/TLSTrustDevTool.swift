import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust-dev`: this repository's developer commands — the benchmark, the soak and the
/// x509-limbo conformance run that CI checks `docs/conformance.md` with.
///
/// Not a product: it links the test workshop (minted PKIs, handshake fixtures), which the user's
/// tool `tlstrust` does not. Run it from the package root with `swift run tlstrust-dev …`.
/// Exit status as `tlstrust`'s: 0 success, 1 a measured or checked failure, 2 bad usage or
/// unreadable input.
@main
struct TLSTrustDevTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tlstrust-dev",
        abstract: "TLSTrust's developer commands: benchmark, soak and x509-limbo conformance over every backend.",
        version: "tlstrust-dev \(TLSTrustPackage.version)",
        subcommands: [BenchCommand.self, SoakCommand.self, ConformanceCommand.self]
    )

    static func main() {
        runAsTool(failure: fail, usageError: fail)
    }

    /// One escaped line on standard error, exit status 2; with `--json`, the error document on
    /// standard output too (``ToolJSON/error(_:exitStatus:)``).
    private static func fail(_ message: String) -> Never {
        if ToolJSON.isRequested { print(ToolJSON.error(message.replacingOccurrences(of: "\n", with: " "))) }
        let line = "tlstrust-dev: " + message.replacingOccurrences(of: "\n", with: " ").terminalSafe + "\n"
        FileHandle.standardError.write(Data(line.utf8))
        Foundation.exit(2)
    }
}
