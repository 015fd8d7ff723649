import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `--crl`, `--ocsp-response`, `--revocation` and `--allow-fetch` (CLI-CONTRACT.md), shared by
/// `evaluate` and `fetch`. Every file is read and parsed before anything is evaluated, so that an
/// unreadable or malformed one is bad input (exit 2), never a verdict; and an answer given while
/// revocation is `off` is refused rather than silently ignored. `--allow-fetch` with
/// `--revocation off` fetches only the issuers a server left out (AIA caIssuers).
struct RevocationOptions: ParsableArguments {
    @Option(name: .customLong("crl"), help: ArgumentHelp("Repeatable: a CRL (PEM or DER) for the certificates its issuer signed (RFC 5280 §6.3).",
                                                         valueName: "FILE"))
    var crlFiles: [String] = []

    @Option(name: .customLong("ocsp-response"), help: ArgumentHelp(
        "Repeatable: a DER OCSPResponse (RFC 6960) for a certificate of the chain, as a server would staple it.", valueName: "FILE"))
    var ocspResponseFiles: [String] = []

    @Option(help: ArgumentHelp("off: not consulted; soft: a certificate a valid answer says is revoked is refused, no answer is tolerated; hard: every certificate but the anchor needs a usable answer. Default: soft with --crl, --ocsp-response or --allow-fetch, and for fetch (it asks the server to staple an answer), else off.",
                               valueName: "off|soft|hard"))
    var revocation: RevocationPolicy.Mode?

    @Flag(help: "Fetch OCSP responses (the certificate's AIA responder), CRLs (its distribution points) and missing issuers (its AIA caIssuers URL) over HTTP, with a timeout and a size limit.")
    var allowFetch = false

    /// The mode the options mean, defaults applied.
    ///
    /// - Parameter stapling: the command asks the server to staple an answer (`fetch`). The
    ///   contract has `fetch` use a stapled answer as `--ocsp-response` would, and an answer given
    ///   means `soft` by default; soft without an answer judges as off does, so defaulting to soft
    ///   before the handshake changes a verdict only when the server's own staple says revoked.
    func mode(stapling: Bool = false) -> RevocationPolicy.Mode {
        revocation ?? (crlFiles.isEmpty && ocspResponseFiles.isEmpty && !allowFetch && !stapling ? .off : .soft)
    }

    func validate() throws {
        if revocation == .off {
            if !crlFiles.isEmpty { throw ValidationError("--crl has no effect with --revocation off: remove one of them") }
            if !ocspResponseFiles.isEmpty { throw ValidationError("--ocsp-response has no effect with --revocation off: remove one of them") }
        }
    }

    /// Sets the trust's revocation policy and answers; unreadable or malformed files throw.
    ///
    /// - Parameter stapling: as for ``mode(stapling:)``.
    func apply(to trust: inout Trust, stapling: Bool = false) throws {
        trust.revocation = RevocationPolicy(mode: mode(stapling: stapling), allowsNetworkFetch: allowFetch)
        for path in crlFiles {
            let bytes = try Self.read(path, flag: "--crl")
            do {
                trust.crls += try CertificateRevocationList.crls(pemOrDER: bytes)
            } catch let error as TLSTrustError {
                throw TLSTrustError(error.code, "--crl \(path): \(error.message)")
            }
        }
        for path in ocspResponseFiles {
            let bytes = try Self.read(path, flag: "--ocsp-response")
            do {
                _ = try OCSPResponse(derEncoded: bytes)
            } catch let error as TLSTrustError {
                throw TLSTrustError(error.code, "--ocsp-response \(path): \(error.message)")
            }
            trust.ocspResponses.append(bytes)
        }
        if allowFetch { trust.revocationFetcher = HTTPRevocationFetcher() }
    }

    /// The file's bytes; a missing or unreadable file names the flag too (`--crl /x: no such file`).
    private static func read(_ path: String, flag: String) throws -> [UInt8] {
        do {
            return try InputFiles.bytes(path)
        } catch let error as TLSTrustError {
            throw TLSTrustError(error.code, "\(flag) \(error.message)")
        }
    }
}

extension RevocationPolicy.Mode: ExpressibleByArgument {}
