import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust pin`: the `sha256/…` SPKI pin of each certificate's (or bare public key's) key.
///
/// The output format is `<pin>  <file>[ #n]  <subject>`, one line per key, so that the first
/// field can be pasted into a pin set. With `--config-entry DOMAIN`, it prints instead one
/// `"DOMAIN": { … }` member of the JSON configuration format, with the pins of every key given.
struct PinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Print the sha256/ pin of each certificate's public key (or of a bare public-key file).",
        discussion: """
            With --config-entry DOMAIN, print a ready-to-paste entry of the JSON pinning configuration \
            (see docs/pinning.md) holding the pins of every key in the files, plus any --backup-pin.
            """
    )

    @Argument(help: "Certificate files (PEM bundles or DER) or public-key files (PEM or DER SubjectPublicKeyInfo).")
    var files: [String]

    @Option(name: .customLong("config-entry"), help: ArgumentHelp("Print a configuration entry for this domain.", valueName: "domain"))
    var configEntry: String?

    @Option(name: .customLong("backup-pin"), help: ArgumentHelp("A pin of a spare key, added to the entry; repeatable.", valueName: "pin"))
    var backupPins: [String] = []

    @Flag(name: .customLong("include-subdomains"), help: "The entry covers the domain's subdomains too.")
    var includeSubdomains = false

    @Flag(name: .customLong("report-only"), help: "The entry reports mismatches without refusing (enforce: false).")
    var reportOnly = false

    @Option(name: .customLong("report-uri"), help: ArgumentHelp("Where the entry's failure reports go; repeatable.", valueName: "url"))
    var reportURIs: [String] = []

    @Flag(help: "Print one JSON object: every key's pin, file and subject (and the entry, with --config-entry).")
    var json = false

    /// `pin --json`.
    struct Document: Encodable {
        struct Key: Encodable {
            let pin: String
            let file: String
            /// The certificate's position in the file (1-based), null for a bare public key.
            @ExplicitNull var index: Int?
            /// The certificate's subject, null for a bare public key.
            @ExplicitNull var subject: String?
            let publicKeyAlgorithm: String
        }
        /// `--config-entry`: the entry's fields, as the JSON configuration format spells them.
        struct Entry: Encodable {
            let domain: String
            let pins: [String]
            let includeSubdomains: Bool
            let enforce: Bool
            let reportURIs: [String]
        }
        var schemaVersion = ToolJSON.schemaVersion
        let keys: [Key]
        @ExplicitNull var configEntry: Entry?
    }

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file") }
        if configEntry == nil && (!backupPins.isEmpty || includeSubdomains || reportOnly || !reportURIs.isEmpty) {
            throw ValidationError("--backup-pin, --include-subdomains, --report-only and --report-uri need --config-entry")
        }
    }

    func run() throws {
        var keys: [(key: PublicKey, label: String, detail: String, record: Document.Key)] = []
        for file in files {
            let bytes = try InputFiles.bytes(file)
            if let key = try? PublicKey(pemOrDER: bytes), !isCertificateFile(bytes) {
                keys.append((key, file, "(public key, \(key.algorithm))",
                             .init(pin: key.pin, file: file, index: nil, subject: nil, publicKeyAlgorithm: "\(key.algorithm)")))
                continue
            }
            if !isCertificateFile(bytes), let other = OtherInput.recognise(bytes) {
                throw TLSTrustError(.invalidArgument,
                                    "\(file) holds \(other.name), not a certificate or a public key: a pin is the hash of a public key; \(other.pinHint)")
            }
            let certificates = try InputFiles.certificates(file)
            for (i, cert) in certificates.enumerated() {
                keys.append((cert.publicKey, certificates.count > 1 ? "\(file) #\(i + 1)" : file, "\(cert.subject)",
                             .init(pin: cert.publicKey.pin, file: file, index: i + 1, subject: cert.subject.description,
                                   publicKeyAlgorithm: "\(cert.publicKey.algorithm)")))
            }
        }
        guard let domain = configEntry else {
            if json {
                ToolJSON.print(Document(keys: keys.map(\.record)))
                return
            }
            for entry in keys { print("\(entry.key.pin)  \(entry.label)  \(entry.detail)".terminalSafe) }
            return
        }
        var pins: [SPKIPin] = []
        for key in keys.map(\.key) where !pins.contains(where: { $0.matches(key) }) {
            pins.append(SPKIPin(publicKey: key))
        }
        for text in backupPins {
            do { pins.append(try SPKIPin(text)) } catch let error as PinningError {
                throw TLSTrustError(.invalidArgument, "--backup-pin: \(error.message)")
            }
        }
        let urls = try reportURIs.map { text in
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw TLSTrustError(.invalidArgument, "--report-uri: not an http(s) URL: \(text)")
            }
            return url
        }
        let set: PinSet
        do {
            set = try PinSet(domain: domain, pins: pins, includesSubdomains: includeSubdomains, enforces: !reportOnly, reportURIs: urls)
        } catch let error as PinningError {
            let hint = error.code == .invalidPinSet && pins.count < 2 ? " (give --backup-pin, or --report-only)" : ""
            throw TLSTrustError(.invalidArgument, "--config-entry \(domain): \(error.message)\(hint)")
        }
        if json {
            ToolJSON.print(Document(keys: keys.map(\.record), configEntry: .init(
                domain: set.domain, pins: set.pins.map(\.text), includeSubdomains: set.includesSubdomains,
                enforce: set.enforces, reportURIs: set.reportURIs.map(\.absoluteString))))
            return
        }
        print(PinningConfiguration.jsonEntry(set))
    }

    private func isCertificateFile(_ bytes: [UInt8]) -> Bool {
        (try? Certificate.certificates(pemOrDER: bytes)) != nil
    }
}
