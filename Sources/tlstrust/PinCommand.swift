import ArgumentParser
import TLSTrust

/// `tlstrust pin`: the `sha256/…` SPKI pin of each certificate's (or bare public key's) key.
///
/// The output format is `<pin>  <file>[ #n]  <subject>`, one line per key, so that the first
/// field can be pasted into a pin set.
struct PinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Print the sha256/ pin of each certificate's public key (or of a bare public-key file)."
    )

    @Argument(help: "Certificate files (PEM bundles or DER) or public-key files (PEM or DER SubjectPublicKeyInfo).")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file") }
    }

    func run() throws {
        for file in files {
            let bytes = try InputFiles.bytes(file)
            if let key = try? PublicKey(pemOrDER: bytes), !isCertificateFile(bytes) {
                print("\(key.pin)  \(file)  (public key, \(key.algorithm))".terminalSafe)
                continue
            }
            let certificates = try InputFiles.certificates(file)
            for (i, cert) in certificates.enumerated() {
                let label = certificates.count > 1 ? "\(file) #\(i + 1)" : file
                print("\(cert.publicKey.pin)  \(label)  \(cert.subject)".terminalSafe)
            }
        }
    }

    private func isCertificateFile(_ bytes: [UInt8]) -> Bool {
        (try? Certificate.certificates(pemOrDER: bytes)) != nil
    }
}
