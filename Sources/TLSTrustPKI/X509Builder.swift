internal import COpenSSL
import Foundation

/// The OpenSSL calls that turn a `CertificateProfile` into a signed DER certificate.
///
/// Ownership rule: every object allocated here is released by a `defer` placed directly under
/// its allocation; objects handed to OpenSSL setters (`X509_set_subject_name`, `X509_add_ext`,
/// `X509_set_pubkey`) are copied or reference-counted by OpenSSL, so ours are still freed.
enum X509Builder {
    static func build(profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?) throws -> [UInt8] {
        ERR_clear_error()
        guard let x509 = X509_new() else { throw TestPKIError.openSSL("X509_new") }
        defer { X509_free(x509) }

        let issuerX509 = try issuer.map { try parseX509($0.der) }
        defer { if let issuerX509 { X509_free(issuerX509) } }

        try check(X509_set_version(x509, Int(profile.version - 1)), "X509_set_version")  // 2 means v3
        try setSerialNumber(of: x509, to: profile.serialNumber)
        try setSubjectName(of: x509, profile: profile)
        if let issuerName = profile.issuerName {
            try withX509Name(issuerName) { try check(X509_set_issuer_name(x509, $0), "X509_set_issuer_name") }
        } else {
            try check(
                X509_set_issuer_name(x509, X509_get_subject_name(issuerX509 ?? x509)), "X509_set_issuer_name")
        }
        try setTime(X509_getm_notBefore(x509), to: profile.notBefore, profile.notBeforeEncoding, "notBefore")
        try setTime(X509_getm_notAfter(x509), to: profile.notAfter, profile.notAfterEncoding, "notAfter")
        try check(X509_set_pubkey(x509, subjectKey.pkey), "X509_set_pubkey")

        let signer = issuer?.privateKey ?? subjectKey
        if profile.version >= 3 { try addExtensions(to: x509, issuer: issuerX509, signer: signer, profile: profile) }

        let digest = signer.keyType.usesSeparateDigest ? messageDigest(profile.signatureDigest) : nil
        try check(X509_sign(x509, signer.pkey, digest), "X509_sign", positive: true)
        return try derEncoding("i2d_X509") { i2d_X509(x509, $0) }
    }

    /// Sets the serial from `bytes` (big-endian), or from 16 random bytes: positive (top bit
    /// clear) and non-zero, within RFC 5280's 20-octet limit.
    private static func setSerialNumber(of x509: OpaquePointer, to bytes: [UInt8]?) throws {
        // Swift's system generator, not RAND_bytes: shim.h does not include <openssl/rand.h>,
        // and a serial only needs to be unpredictable enough never to collide.
        var serial = bytes ?? (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        if bytes == nil { serial[0] = serial[0] & 0x7F | 0x40 }
        guard let number = BN_bin2bn(serial, Int32(serial.count), nil) else {
            throw TestPKIError.openSSL("BN_bin2bn")
        }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil else {
            throw TestPKIError.openSSL("BN_to_ASN1_INTEGER")
        }
    }

    private static func setSubjectName(of x509: OpaquePointer, profile: CertificateProfile) throws {
        if let subject = profile.subject {
            return try withX509Name(subject) { try check(X509_set_subject_name(x509, $0), "X509_set_subject_name") }
        }
        guard let name = X509_NAME_new() else { throw TestPKIError.openSSL("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        let entries = [("O", profile.organization), ("CN", profile.commonName)]
        for case let (field, value?) in entries where !value.isEmpty {
            let bytes = Array(value.utf8)
            try check(
                X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0),
                "subject \(field)=\(value)")
        }
        try check(X509_set_subject_name(x509, name), "X509_set_subject_name")  // copies `name`
    }

    /// Gives `body` an `X509_NAME` decoded from `name`'s DER (OpenSSL keeps each value's bytes
    /// and string type as decoded, so the name is re-encoded exactly as written).
    private static func withX509Name(_ name: TestName, _ body: (OpaquePointer) throws -> Void) throws {
        let der = name.der
        let decoded = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509_NAME(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            // OpenSSL refuses to decode names whose values break their string type (invalid
            // UTF-8, an odd-length BMPString, a VisibleString where it expects a DirectoryString):
            // exactly the names the hostile tests need. Built entry by entry, OpenSSL keeps each
            // value's bytes and tag as given and encodes them unchecked.
            ERR_clear_error()
            return try withRawX509Name(name, body)
        }
        defer { X509_NAME_free(decoded) }
        try body(decoded)  // the setters copy the name
    }

    private static func withRawX509Name(_ name: TestName, _ body: (OpaquePointer) throws -> Void) throws {
        guard let built = X509_NAME_new() else { throw TestPKIError.openSSL("X509_NAME_new") }
        defer { X509_NAME_free(built) }
        for rdn in name.relativeDistinguishedNames {
            for (index, attribute) in rdn.enumerated() {
                guard let object = OBJ_txt2obj(attribute.oid, 1) else { throw TestPKIError.openSSL("OBJ_txt2obj \(attribute.oid)") }
                defer { ASN1_OBJECT_free(object) }
                // set 0: a new RDN; -1: join the RDN just added (multi-valued RDNs).
                try check(X509_NAME_add_entry_by_OBJ(built, object, Int32(attribute.stringType.tag), attribute.value,
                                                     Int32(attribute.value.count), -1, index == 0 ? 0 : -1),
                          "X509_NAME_add_entry_by_OBJ")
            }
        }
        try body(built)
    }

    /// Writes `date` in `encoding`: by default UTCTime for 1950–2049 and GeneralizedTime
    /// outside, as RFC 5280 requires; raw encodings write their text unchecked.
    private static func setTime(
        _ field: UnsafeMutablePointer<ASN1_TIME>?, to date: Date, _ encoding: ValidityTimeEncoding, _ label: String
    ) throws {
        guard let field else { throw TestPKIError(operation: "no \(label) field") }
        let seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        switch encoding {
        case .rfc5280:
            guard ASN1_TIME_set(field, seconds) != nil else { throw TestPKIError.openSSL("set \(label)") }
        case .utcTime:
            let text = timeText(seconds, fourDigitYear: false)
            precondition(text.count == 13, "\(label) \(date) does not fit a UTCTime (1950–2049)")
            try setRawTime(field, text, type: V_ASN1_UTCTIME, label)
        case .generalizedTime:
            try setRawTime(field, timeText(seconds, fourDigitYear: true), type: V_ASN1_GENERALIZEDTIME, label)
        case .rawUTCTime(let text):
            try setRawTime(field, text, type: V_ASN1_UTCTIME, label)
        case .rawGeneralizedTime(let text):
            try setRawTime(field, text, type: V_ASN1_GENERALIZEDTIME, label)
        }
    }

    /// `YYMMDDHHMMSSZ` or `YYYYMMDDHHMMSSZ` for `seconds` since the epoch, in UTC.
    private static func timeText(_ seconds: time_t, fourDigitYear: Bool) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        let yearText = fourDigitYear
            ? String(format: "%04d", year)
            : ((1950...2049).contains(year) ? String(format: "%02d", year % 100) : "\(year)")
        return yearText + String(
            format: "%02d%02d%02d%02d%02dZ", parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    /// Stores `text` as the time's contents with the given tag, bypassing OpenSSL's date checks
    /// (which refuse February 30): the bytes are signed as they are.
    private static func setRawTime(
        _ field: UnsafeMutablePointer<ASN1_TIME>, _ text: String, type: Int32, _ label: String
    ) throws {
        let bytes = Array(text.utf8)
        try check(ASN1_STRING_set(field, bytes, Int32(bytes.count)), "set raw \(label) \(text)")
        field.pointee.type = type
    }

    static func messageDigest(_ digest: SignatureDigest) -> OpaquePointer? {
        switch digest {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }

    /// Adds the v3 extensions, written in OpenSSL's configuration syntax (the one `openssl x509
    /// -extfile` reads) so that each line is easy to compare with the `openssl` documentation.
    private static func addExtensions(
        to x509: OpaquePointer, issuer: OpaquePointer?, signer: TestPrivateKey, profile: CertificateProfile
    ) throws {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer ?? x509, x509, nil, nil, 0)
        try check(X509V3_set_issuer_pkey(&context, signer.pkey), "X509V3_set_issuer_pkey")

        /// One extension to write: in OpenSSL's configuration syntax, or as raw DER.
        enum Planned {
            case configuration(name: String, value: String)
            case raw(RawExtension)
        }
        var plan: [(oid: String, value: Planned)] = []

        if let isCA = profile.isCA {
            var value = (profile.basicConstraintsIsCritical ? "critical," : "") + (isCA ? "CA:TRUE" : "CA:FALSE")
            if isCA, let pathLength = profile.pathLengthConstraint { value += ",pathlen:\(pathLength)" }
            plan.append((RawExtension.OID.basicConstraints, .configuration(name: "basicConstraints", value: value)))
        }
        let keyUsage = profile.effectiveKeyUsage
        if !keyUsage.isEmpty {
            plan.append((RawExtension.OID.keyUsage,
                         .configuration(name: "keyUsage", value: "critical," + keyUsage.openSSLNames.joined(separator: ","))))
        }
        if let extendedKeyUsage = profile.extendedKeyUsage, !extendedKeyUsage.isEmpty {
            plan.append((RawExtension.OID.extendedKeyUsage,
                         .configuration(name: "extendedKeyUsage", value: extendedKeyUsage.map(\.rawValue).joined(separator: ","))))
        }
        // subjectAltName and nameConstraints are encoded here rather than by OpenSSL, whose
        // configuration parser refuses the non-ASCII names and odd-length addresses attack tests need.
        let alternativeNames = profile.effectiveAlternativeNames
        if !alternativeNames.isEmpty {
            plan.append((RawExtension.OID.subjectAltName, .raw(.subjectAlternativeName(alternativeNames))))
        }
        let constraints = profile.effectiveNameConstraints
        if !constraints.isEmpty {
            plan.append((RawExtension.OID.nameConstraints, .raw(constraints.rawExtension)))
        }
        if profile.includesKeyIdentifiers {
            let identifier = profile.subjectKeyIdentifierOverride.map {
                $0.map { String(format: "%02X", $0) }.joined(separator: ":")
            }
            plan.append((RawExtension.OID.subjectKeyIdentifier,
                         .configuration(name: "subjectKeyIdentifier", value: identifier ?? "hash")))
            // "keyid" copies the issuer's subjectKeyIdentifier (OpenSSL 3 refuses it when the issuer
            // has none, so it is left out then); a self-signed certificate needs no authorityKeyIdentifier.
            if let override = profile.authorityKeyIdentifierOverride {
                plan.append((RawExtension.OID.authorityKeyIdentifier, .raw(.authorityKeyIdentifier(override))))
            } else if let issuer, X509_get0_subject_key_id(issuer) != nil {
                plan.append((RawExtension.OID.authorityKeyIdentifier,
                             .configuration(name: "authorityKeyIdentifier", value: "keyid")))
            }
        }
        for rawExtension in profile.extensions {
            if let index = plan.firstIndex(where: { $0.oid == rawExtension.oid }) {
                plan[index].value = .raw(rawExtension)
            } else {
                plan.append((rawExtension.oid, .raw(rawExtension)))
            }
        }
        plan.removeAll { profile.omittedExtensions.contains($0.oid) }

        for (oid, planned) in plan {
            let made: OpaquePointer?
            switch planned {
            case .configuration(let name, let value):
                made = X509V3_EXT_nconf(nil, &context, name, value)
            case .raw(let rawExtension):
                made = try makeRawExtension(rawExtension)
            }
            guard let made else { throw TestPKIError.openSSL("extension \(oid)") }
            defer { X509_EXTENSION_free(made) }
            try check(X509_add_ext(x509, made, -1), "X509_add_ext \(oid)")  // copies it
        }
    }

    /// An owned `X509_EXTENSION` holding `rawExtension`'s value as is; the caller frees it.
    private static func makeRawExtension(_ rawExtension: RawExtension) throws -> OpaquePointer {
        guard let object = OBJ_txt2obj(rawExtension.oid, 1) else { throw TestPKIError.openSSL("OBJ_txt2obj \(rawExtension.oid)") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw TestPKIError.openSSL("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(value) }
        try check(ASN1_OCTET_STRING_set(value, rawExtension.valueDER, Int32(rawExtension.valueDER.count)),
                  "ASN1_OCTET_STRING_set")
        guard let made = X509_EXTENSION_create_by_OBJ(nil, object, rawExtension.isCritical ? 1 : 0, value) else {
            throw TestPKIError.openSSL("X509_EXTENSION_create_by_OBJ \(rawExtension.oid)")
        }
        return made
    }
}
