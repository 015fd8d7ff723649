import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust inspect`: a readable summary of each certificate, from files or from a live server.
///
/// For `https://HOST:PORT` it connects, takes the chain the server presents, and shows it, the
/// chain TLSTrust builds from it (or why none validates) and each certificate's pin — what
/// `openssl s_client -showcerts` shows, but readable. It then ends the handshake with an alert:
/// nothing is ever sent to the server.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print a readable summary of each certificate in the given files, or presented by https://HOST:PORT."
    )

    @Argument(help: "Certificate files (PEM bundles or DER), or https://HOST[:PORT] URLs.")
    var files: [String]

    @OptionGroup(title: "Connection (for https:// arguments)") var tls: ClientTLSOptions

    @Flag(help: "Print one JSON object: one item per certificate, CRL or OCSP response given (or per live server).")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file") }
    }

    func run() throws {
        var first = true
        var items: [InspectJSON.Item] = []
        for file in files {
            if file.lowercased().hasPrefix("https://") {
                if json {
                    items.append(try inspectLive(file))
                    continue
                }
                if !first { print("") }
                first = false
                _ = try inspectLive(file)
                continue
            }
            let bytes = try InputFiles.bytes(file)
            if (try? Certificate.certificates(pemOrDER: bytes)) == nil, let other = OtherInput.recognise(bytes) {
                // A CRL, an OCSP response or a .p12 is shown (or named) for what it is.
                if json {
                    items.append(InspectJSON.Item(file: file, other: other))
                    continue
                }
                if !first { print("") }
                first = false
                print(file.terminalSafe)
                print(Self.layout(other.summaryLines))
                continue
            }
            let certificates = try InputFiles.certificates(file)
            for (i, cert) in certificates.enumerated() {
                if json {
                    items.append(InspectJSON.Item(file: file, index: i + 1, certificate: cert))
                    continue
                }
                if !first { print("") }
                first = false
                print((certificates.count > 1 ? "\(file) #\(i + 1)" : file).terminalSafe)
                print(Self.summary(cert))
            }
        }
        if json { ToolJSON.print(InspectJSON.Document(items: items)) }
    }

    /// Connects, captures the presented chain in the server-trust challenge, and refuses it.
    /// - Returns: the JSON item of the server (printed as text unless `--json`).
    private func inspectLive(_ url: String) throws -> InspectJSON.Item {
        let target = try HTTPSURL(url)
        let backend = try tls.tlsBackend()
        var configuration = try tls.configuration(for: target.host, backend: backend)
        // With --connect-to, the URL's host is still the name sent and checked.
        if configuration.serverName == nil { configuration.serverName = target.host }
        // Soft revocation, so that the client asks for a stapled OCSP response (where the library
        // can ask) and the engine reports what it says. Soft without an answer judges as off does,
        // so the verdict shown changes only when the server's own staple says revoked; nothing is
        // fetched (no `allowsNetworkFetch`): inspecting contacts no one but the server. Only
        // `revocation` is set, not `requestsOCSPStapling`, so a library that cannot ask
        // (mbedTLS 2.28) still connects rather than refusing the session.
        configuration.revocation = RevocationPolicy(mode: .soft)
        let box = CapturedTrust()
        configuration.challengeHandler = TLSChallengeHandlers.closure { challenge in
            if challenge.protectionSpace.authenticationMethod == .serverTrust {
                box.trust.withLock { $0 = challenge.protectionSpace.serverTrust }
            }
            return .cancel(because: nil)
        }
        let finalConfiguration = configuration
        let connectTo = tls.connectTo
        let error: TLSError? = try AsyncBridge.run {
            do {
                let connection = try await TLSConnection.connect(host: connectTo ?? target.host, port: target.port,
                                                                 configuration: finalConfiguration, backend: backend)
                await connection.close()
                return nil
            } catch let error as TLSError {
                return error
            }
        }
        guard let trust = box.trust.withLock({ $0 }) else {
            FetchCommand.explain(error ?? TLSError(.noPeerCertificate, "no certificate was presented"),
                                 host: target.hostHeader, backend: backend.name)
        }
        let evaluation = trust.evaluate(using: backend)
        if json {
            return InspectJSON.Item(url: target.description, backend: backend.name, presented: trust.certificates, evaluation: evaluation)
        }
        print("\(target.description) [\(backend.name)]: \(trust.certificates.count) certificate(s) presented".terminalSafe)
        for (i, certificate) in trust.certificates.enumerated() {
            print("")
            print("presented #\(i)\(i == 0 ? " (leaf)" : "")")
            print(Self.summary(certificate))
        }
        print("")
        if evaluation.isTrusted {
            print("built chain (trusted for \(configuration.serverName ?? target.host) by \(finalConfiguration.anchors)):".terminalSafe)
        } else {
            print("not trusted for \(configuration.serverName ?? target.host) by \(finalConfiguration.anchors):".terminalSafe)
            for failure in evaluation.failures.prefix(5) { print("  - \(failure)".terminalSafe) }
            if !evaluation.chain.isEmpty { print("best chain built:") }
        }
        for (i, certificate) in evaluation.chain.enumerated() {
            print("  \(i): \(certificate.subject)  \(certificate.publicKey.pin)".terminalSafe)
        }
        if !evaluation.revocation.isEmpty {
            print("revocation (\(trust.revocation)):")
            for status in evaluation.revocation { print("  \(status)".terminalSafe) }
        }
        return InspectJSON.Item(url: target.description, backend: backend.name, presented: trust.certificates, evaluation: evaluation)
    }

    static func summary(_ c: Certificate) -> String {
        let iso = ISO8601DateFormatter()
        var lines: [(String, String)] = [
            ("Subject", c.subject.description),
            ("Issuer", c.issuer.description),
            ("Serial", ToolJSON.hex(c.serialNumber)),
            ("Version", "v\(c.version)"),
            ("Not before", iso.string(from: c.notValidBefore)),
            ("Not after", iso.string(from: c.notValidAfter) + (c.isValid(at: Date()) ? "" : (Date() > c.notValidAfter ? "  (EXPIRED)" : "  (NOT YET VALID)"))),
            ("Public key", c.publicKey.algorithm.description),
            ("Key pin", c.publicKey.pin),
            ("Signature", c.signatureAlgorithm.name + (c.signatureAlgorithm.isWeak ? "  (WEAK)" : "")),
            ("SHA-256", ToolJSON.hex(c.sha256Fingerprint)),
        ]
        if let keyID = c.subjectKeyIdentifier { lines.append(("Key ID", ToolJSON.hex(keyID))) }
        if !c.dnsNames.isEmpty { lines.append(("DNS names", c.dnsNames.joined(separator: ", "))) }
        if !c.ipAddresses.isEmpty { lines.append(("IP addresses", c.ipAddresses.map(\.description).joined(separator: ", "))) }
        if !c.emailAddresses.isEmpty { lines.append(("E-mail", c.emailAddresses.joined(separator: ", "))) }
        if let bc = c.basicConstraints {
            var text = bc.isCertificateAuthority ? "CA" : "not a CA"
            if let p = bc.pathLengthConstraint { text += ", path length \(p)" }
            lines.append(("Basic constraints", text + (bc.isCritical ? " (critical)" : "")))
        } else {
            lines.append(("Basic constraints", "absent (not a CA)"))
        }
        if let ku = c.keyUsage { lines.append(("Key usage", ku.names.joined(separator: ", "))) }
        if let eku = c.extendedKeyUsage { lines.append(("Extended key usage", eku.map(Self.ekuName).joined(separator: ", "))) }
        if c.hasNameConstraints { lines.append(("Name constraints", "present")) }
        if c.isSelfIssued { lines.append(("Self-issued", "yes")) }
        let pointers = c.revocationPointers
        if !pointers.ocspResponders.isEmpty { lines.append(("OCSP", pointers.ocspResponders.joined(separator: ", "))) }
        let crlURLs = pointers.crlDistributionPoints.flatMap(\.fullName).map(\.description)
        if !crlURLs.isEmpty { lines.append(("CRL", crlURLs.joined(separator: ", "))) }
        if c.hasOCSPNoCheck { lines.append(("OCSP nocheck", "yes (a delegated OCSP responder)")) }
        lines += TransparencySummary.lines(of: c)
        for warning in c.lint() { lines.append(("Warning", "\(warning.code): \(warning.message)")) }
        return layout(lines)
    }

    /// Labelled lines, the labels padded to one width; every value escaped (it may come from the input).
    static func layout(_ lines: [(String, String)]) -> String {
        let width = lines.map(\.0.count).max() ?? 0
        // Every value may come from the certificate: escaped, so that it cannot act on the terminal.
        return lines.map { "  " + ($0.0 + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0) + " " + $0.1.terminalSafe }
            .joined(separator: "\n")
    }

    /// Where the live inspection's challenge handler leaves the presented chain.
    final class CapturedTrust: Sendable {
        let trust = Locked<Trust?>(nil)
    }

    static func ekuName(_ oid: String) -> String {
        switch oid {
        case ExtendedKeyUsageOID.serverAuth: return "serverAuth"
        case ExtendedKeyUsageOID.clientAuth: return "clientAuth"
        case ExtendedKeyUsageOID.codeSigning: return "codeSigning"
        case ExtendedKeyUsageOID.emailProtection: return "emailProtection"
        case ExtendedKeyUsageOID.anyExtendedKeyUsage: return "anyExtendedKeyUsage"
        default: return oid
        }
    }
}
