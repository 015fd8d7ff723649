import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustTesting

/// `tlstrust demo`: why an app should not rely on the system trust store alone.
///
/// Mints a throwaway PKI: a "public" CA that issued the app's genuine server certificate (standing
/// for a real public CA) and a Charles-style interception CA that the user was talked into
/// installing, which forges a certificate for the same host. The system store is the
/// distribution's bundle plus both CAs. Each backend then evaluates both certificates under
/// (a) default system trust and (b) a CA whitelist holding only the app's CA.
///
/// Exits 0 when every backend shows the expected outcome (system trust fooled, whitelist not),
/// 1 otherwise — the demo checks itself.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show an interception proxy fooling system trust, and a CA whitelist refusing it."
    )

    @Option(help: "The host name the app connects to.")
    var host = "api.example.com"

    func run() throws {
        let directory = try TemporaryDirectory(prefix: "tlstrust-demo")
        try withExtendedLifetime(directory) { try run(in: directory) }
    }

    private func run(in directory: TemporaryDirectory) throws {
        // 1. The PKI, minted now and valid for a few days only.
        let publicCA = try TestPKI.issue(.certificateAuthority(commonName: "Demo Public Root CA"))
        let genuine = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: publicCA)
        let proxyCA = try TestPKI.issue(.certificateAuthority(commonName: "Charles Proxy CA (demo, installed by the user)"))
        let forged = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: proxyCA)

        // 2. A system store as the victim's device has it: the distribution's CAs plus the proxy's.
        let distribution = SystemTrustStore.current
        var bundle = distribution.certificates().map(\.pemEncoded).joined()
        bundle += publicCA.pem + proxyCA.pem
        let bundleURL = directory.file("system-ca-bundle.pem")
        try Data(bundle.utf8).write(to: bundleURL)
        try TestPKI.writePEM([publicCA], to: directory.file("app-ca.pem"))
        try TestPKI.writePEM([genuine], to: directory.file("genuine-server.pem"))
        try TestPKI.writePEM([proxyCA], to: directory.file("proxy-ca.pem"))
        try TestPKI.writePEM([forged], to: directory.file("forged-server.pem"))
        let deviceStore = SystemTrustStore(files: [bundleURL.path])

        print("TLSTrust demo: an interception proxy against system trust and against a CA whitelist")
        print("  PKI minted in \(directory.url.path) (deleted on exit)")
        print("  host: \(host)".terminalSafe)
        print("  system store: \(distribution) + the public CA + the proxy CA the user installed (\(deviceStore.certificates().count) CAs)")
        print("  whitelist: the app's CA only (\(publicCA.certificate.subject))".terminalSafe)
        print("")

        let systemTrust = TrustAnchors([], includingSystemStore: true, systemStore: deviceStore)
        let whitelist = TrustAnchors.only([publicCA.certificate])
        let cases: [(label: String, cert: TestCertificate, expectSystem: Bool, expectWhitelist: Bool)] = [
            ("genuine (app's CA)", genuine, true, true),
            ("forged (proxy CA)", forged, true, false),
        ]

        var table = TextTable(headers: ["backend", "certificate presented", "(a) system trust", "(b) app CA only"])
        var asExpected = true
        for backend in TrustBackends.all {
            for c in cases {
                var cells = [backend.name, c.label]
                for (anchors, expected) in [(systemTrust, c.expectSystem), (whitelist, c.expectWhitelist)] {
                    let trust = Trust(certificates: [c.cert.certificate], policies: [.ssl(hostname: host)], anchors: anchors)
                    let evaluation = trust.evaluate(using: backend)
                    asExpected = asExpected && evaluation.isTrusted == expected
                    let fooled = evaluation.isTrusted && c.cert.certificate == forged.certificate
                    cells.append(evaluation.isTrusted
                        ? (fooled ? "TRUSTED - intercepted!" : "trusted")
                        : "refused: \(evaluation.failures.first?.code.identifier ?? "?")")
                }
                table.add(cells)
            }
        }
        print(table.render())  // cells hold only backend names, fixed labels and failure codes
        print("")
        if asExpected {
            print("Default trust accepts the proxy's forged certificate on every backend: the proxy reads all traffic.")
            print("Trusting only the app's own CA refuses it. See README.md for the Swift code.")
        } else {
            print("UNEXPECTED: at least one backend did not behave as described above.")
            throw ExitCode(1)
        }
    }
}
