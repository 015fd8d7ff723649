import Foundation
import TLSTrust
import TLSTrustToolSupport

/// What a file given to `inspect` or `pin` holds when it is not a certificate: a CRL, an OCSP
/// response, a PKCS#12 archive, a private key or another PEM block.
///
/// The certificate parser's own error ("malformed DER") would send the user looking for a broken
/// certificate; naming what the file is tells them they gave the wrong file, and `inspect` can
/// show the CRL or OCSP response it was given.
enum OtherInput {
    case crl(CertificateRevocationList)
    case ocspResponse(OCSPResponse)
    /// A PKCS#12 archive (`.p12`, `.pfx`): encrypted, so only recognised, not read.
    case pkcs12
    /// A PEM block of another kind, by its label (`PRIVATE KEY`, `CERTIFICATE REQUEST`, …).
    case pem(label: String)

    /// What `bytes` holds, or nil when it is none of these.
    static func recognise(_ bytes: [UInt8]) -> OtherInput? {
        if let label = firstPEMLabel(bytes) {
            if label == "X509 CRL", let crl = try? CertificateRevocationList.crls(pemOrDER: bytes).first { return .crl(crl) }
            if label == "PKCS12" { return .pkcs12 }
            return label == "CERTIFICATE" || label == "PUBLIC KEY" ? nil : .pem(label: label)
        }
        if let crl = try? CertificateRevocationList(derEncoded: bytes) { return .crl(crl) }
        if let response = try? OCSPResponse(derEncoded: bytes) { return .ocspResponse(response) }
        if isPKCS12(bytes) { return .pkcs12 }
        return nil
    }

    /// The kind in words, with its article: "a CRL", "an OCSP response", …
    var name: String {
        switch self {
        case .crl: "a CRL"
        case .ocspResponse: "an OCSP response"
        case .pkcs12: "a PKCS#12 archive (.p12)"
        case .pem(let label): label.hasSuffix("PRIVATE KEY") ? "a private key (PEM \(label))" : "a PEM \(label) block"
        }
    }

    /// The kind as JSON names it (camelCase).
    var kind: String {
        switch self {
        case .crl: "crl"
        case .ocspResponse: "ocspResponse"
        case .pkcs12: "pkcs12"
        case .pem(let label): label.hasSuffix("PRIVATE KEY") ? "privateKey" : "pemBlock"
        }
    }

    /// What to do instead, for `pin`.
    var pinHint: String {
        switch self {
        case .pkcs12: "extract its certificate first (openssl pkcs12 -in FILE -nokeys -clcerts)"
        case .pem(let label) where label.hasSuffix("PRIVATE KEY"): "give its certificate, or its public key (openssl pkey -pubout)"
        default: "give the certificate (or public key) it concerns"
        }
    }

    /// `inspect`'s readable lines, in the layout of a certificate's summary.
    var summaryLines: [(String, String)] {
        switch self {
        case .crl(let crl):
            var lines: [(String, String)] = [
                ("Kind", "CRL" + (crl.isDelta ? " (delta)" : "")),
                ("Issuer", crl.issuer.description),
                ("This update", ToolJSON.instant(crl.thisUpdate)),
                ("Next update", crl.nextUpdate.map(ToolJSON.instant) ?? "absent"),
            ]
            if let number = crl.crlNumber { lines.append(("CRL number", ToolJSON.hex(number))) }
            lines.append(("Entries", "\(crl.entries.count)"))
            for entry in crl.entries.prefix(10) {
                lines.append(("Revoked", "serial \(ToolJSON.hex(entry.serialNumber)) at \(ToolJSON.instant(entry.revocationDate))"
                    + (entry.reason.map { " (\($0))" } ?? "")))
            }
            if crl.entries.count > 10 { lines.append(("Revoked", "… \(crl.entries.count - 10) more")) }
            if let reason = crl.unusableReason { lines.append(("Warning", reason)) }
            return lines
        case .ocspResponse(let response):
            var lines: [(String, String)] = [("Kind", "OCSP response"), ("Status", response.status.description)]
            if let responder = response.responderID { lines.append(("Responder", responder.description)) }
            if let producedAt = response.producedAt { lines.append(("Produced at", ToolJSON.instant(producedAt))) }
            for single in response.responses {
                lines.append(("Certificate", "serial \(ToolJSON.hex(single.certID.serialNumber)): \(single.status); this update "
                    + ToolJSON.instant(single.thisUpdate) + (single.nextUpdate.map { ", next update \(ToolJSON.instant($0))" } ?? "")))
            }
            lines.append(("Certificates", "\(response.certificates.count) included"))
            return lines
        case .pkcs12:
            return [("Kind", "PKCS#12 archive (.p12): encrypted; use it as an identity (--identity with --password-file)")]
        case .pem(let label):
            return [("Kind", name), ("Note", "PEM label \(label): not a certificate, CRL or OCSP response")]
        }
    }

    /// The label of the first `-----BEGIN LABEL-----` line, if the input is PEM.
    static func firstPEMLabel(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes.prefix(64 * 1024), as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN ") else { return nil }
        guard let end = text[begin.upperBound...].range(of: "-----") else { return nil }
        let label = text[begin.upperBound..<end.lowerBound]
        return label.count <= 64 ? String(label) : nil
    }

    /// A DER PFX (RFC 7292): `SEQUENCE { INTEGER 3, SEQUENCE { OID pkcs7-data or -signedData, … } … }`.
    static func isPKCS12(_ bytes: [UInt8]) -> Bool {
        var i = 0
        func skipHeader(tag: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == tag, i + 1 < bytes.count else { return false }
            let first = bytes[i + 1]
            i += 2
            if first & 0x80 != 0 { i += Int(first & 0x7F) }  // long form, or 0x80 (BER indefinite)
            return i <= bytes.count
        }
        guard skipHeader(tag: 0x30) else { return false }
        guard i + 3 <= bytes.count, Array(bytes[i..<i + 3]) == [0x02, 0x01, 0x03] else { return false }
        i += 3
        guard skipHeader(tag: 0x30) else { return false }
        let pkcs7 = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07] as [UInt8]
        guard i + pkcs7.count + 1 <= bytes.count, Array(bytes[i..<i + pkcs7.count]) == pkcs7 else { return false }
        return [0x01, 0x02].contains(bytes[i + pkcs7.count])
    }
}
