import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust backends`: the registered backends, the library versions linked at run time and the
/// roles each plays (so that a script — or the CLI's own tests — can tell which backends have a
/// native verifier or TLS without knowing them by name), the system store read (where, how many
/// anchors) and whether the public suffix list loaded.
struct BackendsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backends",
        abstract: "List the registered backends with their library versions and roles, the system store read and the public suffix list's status."
    )

    @Flag(help: "Print one JSON object: the backends, the system trust store and the public suffix list.")
    var json = false

    /// `backends --json`.
    struct Document: Encodable {
        struct Backend: Encodable {
            let name: String
            let libraryVersion: String
            let isDefault: Bool
            /// camelCase: `signatures`, `nativeVerifier`, `identities`, `tls`.
            let roles: [String]
        }
        struct Store: Encodable { let description: String; let anchorCount: Int }
        struct SuffixList: Encodable { let path: String; let loaded: Bool }
        var schemaVersion = ToolJSON.schemaVersion
        let backends: [Backend]
        let systemTrustStore: Store
        let publicSuffixList: SuffixList
    }

    static func roleNames(_ roles: BackendRoles) -> [String] {
        [(BackendRoles.signatures, "signatures"), (.nativeVerifier, "nativeVerifier"), (.identities, "identities"), (.tls, "tls")]
            .filter { roles.contains($0.0) }.map(\.1)
    }

    func run() throws {
        let defaultName = TrustBackends.defaultBackend?.name
        if json {
            let status = SystemTrustStore.current.status
            ToolJSON.print(Document(
                backends: TrustBackends.all.map {
                    .init(name: $0.name, libraryVersion: $0.libraryVersion, isDefault: $0.name == defaultName,
                          roles: Self.roleNames($0.capabilities.roles))
                },
                systemTrustStore: .init(description: "\(status.store)", anchorCount: status.anchorCount),
                publicSuffixList: .init(path: PublicSuffixListStatus.path, loaded: PublicSuffixListStatus.isLoaded)))
            if !PublicSuffixListStatus.isLoaded {
                FileHandle.standardError.write(Data("tlstrust: warning: public suffix list NOT LOADED (\(PublicSuffixListStatus.path) missing)\n".utf8))
            }
            return
        }
        var table = TextTable(headers: ["backend", "library", "default", "roles"])
        for backend in TrustBackends.all {
            table.add([backend.name, backend.libraryVersion, backend.name == defaultName ? "yes" : "",
                       backend.capabilities.roles.description])
        }
        print(table.render())
        let status = SystemTrustStore.current.status
        print("system trust store: \(status.store) (\(status.anchorCount) anchor\(status.anchorCount == 1 ? "" : "s"))")
        if PublicSuffixListStatus.isLoaded {
            print("public suffix list: \(PublicSuffixListStatus.path) (loaded)")
        } else {
            // Loud, on both streams: without the list every wildcard certificate is refused.
            let warning = "public suffix list: NOT LOADED (\(PublicSuffixListStatus.path) missing): wildcard certificates match no host (fail closed); install the publicsuffix package"
            print(warning)
            FileHandle.standardError.write(Data("tlstrust: warning: \(warning)\n".utf8))
        }
    }
}
