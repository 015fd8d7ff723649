import ArgumentParser
import Foundation
import TLSTrust

/// `tlstrust inspect`: a readable summary of each certificate.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print a readable summary of each certificate in the given files."
    )

    @Argument(help: "Certificate files (PEM bundles or DER).")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file") }
    }

    func run() throws {
        var first = true
        for file in files {
            let certificates = try InputFiles.certificates(file)
            for (i, cert) in certificates.enumerated() {
                if !first { print("") }
                first = false
                print((certificates.count > 1 ? "\(file) #\(i + 1)" : file).terminalSafe)
                print(Self.summary(cert))
            }
        }
    }

    static func summary(_ c: Certificate) -> String {
        let iso = ISO8601DateFormatter()
        var lines: [(String, String)] = [
            ("Subject", c.subject.description),
            ("Issuer", c.issuer.description),
            ("Serial", c.serialNumberHex),
            ("Version", "v\(c.version)"),
            ("Not before", iso.string(from: c.notValidBefore)),
            ("Not after", iso.string(from: c.notValidAfter) + (c.isValid(at: Date()) ? "" : (Date() > c.notValidAfter ? "  (EXPIRED)" : "  (NOT YET VALID)"))),
            ("Public key", c.publicKey.algorithm.description),
            ("Key pin", c.publicKey.pin),
            ("Signature", c.signatureAlgorithm.name + (c.signatureAlgorithm.isWeak ? "  (WEAK)" : "")),
            ("SHA-256", c.sha256FingerprintHex),
        ]
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
        let width = lines.map(\.0.count).max() ?? 0
        // Every value may come from the certificate: escaped, so that it cannot act on the terminal.
        return lines.map { "  " + ($0.0 + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0) + " " + $0.1.terminalSafe }
            .joined(separator: "\n")
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
