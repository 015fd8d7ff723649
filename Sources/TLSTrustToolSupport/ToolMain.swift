import ArgumentParser
import Foundation
import TLSTrust

extension ParsableCommand {
    /// The whole life of `tlstrust` and `tlstrust-dev`: registers the backends, runs the command
    /// the arguments name, and exits — 0 on success and for `--help` / `--version` (which
    /// ArgumentParser throws), the status of an `ExitCode` a command throws, and otherwise through
    /// the tool's own one-line error: `failure` for input the library refused, `usageError` for
    /// arguments ArgumentParser refused (whose own status, 64, each tool folds into 2).
    package static func runAsTool(failure: (String) -> Never, usageError: (String) -> Never) -> Never {
        ToolBackends.register()
        do {
            var command = try parseAsRoot()
            try command.run()
            Foundation.exit(0)
        } catch let error as TLSTrustError {
            failure(error.message)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            usageError(message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid usage")
        }
    }
}
