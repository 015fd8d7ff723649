import ArgumentParser
import Foundation
import TLSTrust

/// `--crl`, `--ocsp-response`, `--revocation` and `--allow-fetch` (CLI-CONTRACT.md), shared by
/// `evaluate` and `fetch`. Every file is read and parsed before anything is evaluated, so that an
/// unreadable or malformed one is bad input (exit 2), never a verdict; and an answer given while
/// revocation is `off` is refused rather than silently ignored.
struct RevocationOptions: ParsableArguments {
    @Option(name: .customLong("crl"), help: ArgumentHelp("Repeatable: a CRL (PEM or DER) for the certificates its issuer signed (RFC 5280 §6.3).",
                                                         valueName: "FILE"))
    var crlFiles: [String] = []

    @Option(name: .customLong("ocsp-response"), help: ArgumentHelp(
        "Repeatable: a DER OCSPResponse (RFC 6960) for a certificate of the chain, as a server would staple it.", valueName: "FILE"))
    var ocspResponseFiles: [String] = []

    @Option(help: ArgumentHelp("off: not consulted; soft: a certificate a valid answer says is revoked is refused, no answer is tolerated; hard: every certificate but the anchor needs a usable answer. Default: soft with --crl, --ocsp-response or --allow-fetch, else off.",
                               valueName: "off|soft|hard"))
    var revocation: RevocationPolicy.Mode?

    @Flag(help: "Fetch OCSP responses (the certificate's AIA responder) and CRLs (its distribution points) over HTTP, with a timeout and a size limit.")
    var allowFetch = false

    /// The mode the options mean, defaults applied.
    var mode: RevocationPolicy.Mode {
        revocation ?? (crlFiles.isEmpty && ocspResponseFiles.isEmpty && !allowFetch ? .off : .soft)
    }

    func validate() throws {
        if revocation == .off {
            if !crlFiles.isEmpty { throw ValidationError("--crl has no effect with --revocation off: remove one of them") }
            if !ocspResponseFiles.isEmpty { throw ValidationError("--ocsp-response has no effect with --revocation off: remove one of them") }
            if allowFetch { throw ValidationError("--allow-fetch has no effect with --revocation off: remove one of them") }
        }
    }

    /// Sets the trust's revocation policy and answers; unreadable or malformed files throw.
    func apply(to trust: inout Trust) throws {
        trust.revocation = RevocationPolicy(mode: mode, allowsNetworkFetch: allowFetch)
        for path in crlFiles {
            do {
                trust.crls += try CertificateRevocationList.crls(pemOrDER: try InputFiles.bytes(path))
            } catch let error as TLSTrustError {
                throw TLSTrustError(error.code, "--crl \(path): \(error.message)")
            }
        }
        for path in ocspResponseFiles {
            let bytes = try InputFiles.bytes(path)
            do {
                _ = try OCSPResponse(derEncoded: bytes)
            } catch let error as TLSTrustError {
                throw TLSTrustError(error.code, "--ocsp-response \(path): \(error.message)")
            }
            trust.ocspResponses.append(bytes)
        }
        if allowFetch { trust.revocationFetcher = HTTPRevocationFetcher() }
    }
}

extension RevocationPolicy.Mode: ExpressibleByArgument {}
