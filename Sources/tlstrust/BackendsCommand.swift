import ArgumentParser
import TLSTrust

/// `tlstrust backends`: the registered backends and the library versions linked at run time.
struct BackendsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backends",
        abstract: "List the registered backends with their library versions."
    )

    func run() throws {
        let defaultName = TrustBackends.defaultBackend?.name
        var table = TextTable(headers: ["backend", "library", "default"])
        for backend in TrustBackends.all {
            table.add([backend.name, backend.libraryVersion, backend.name == defaultName ? "yes" : ""])
        }
        print(table.render())
        print("system trust store: \(SystemTrustStore.current)")
    }
}
