internal import CGnuTLS
import TLSTrust

/// Owns the GnuTLS reading (`gnutls_x509_name_constraints_t`) of one CA's nameConstraints extension.
///
/// GnuTLS itself only checks name constraints against the end certificate; OpenSSL checks every
/// certificate below the constraining CA. This type lets the backend do the latter with GnuTLS's
/// own matching rules (``permitsEndEntity(_:)`` for the leaf, ``permitsNames(of:)`` for CAs).
final class GnuTLSNameConstraints {
    let ref: gnutls_x509_name_constraints_t

    /// Reads `certificate`'s nameConstraints extension.
    ///
    /// - Returns: nil when the certificate has none.
    /// - Throws: `TLSTrustError` `.malformedCertificate` when GnuTLS cannot decode the extension.
    init?(of certificate: GnuTLSCertificate) throws {
        var made: gnutls_x509_name_constraints_t?
        let created = gnutls_x509_name_constraints_init(&made)
        guard created >= 0, let made else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_x509_name_constraints_init failed: \(GnuTLSLibrary.errorText(created))")
        }
        var critical: UInt32 = 0
        let read = gnutls_x509_crt_get_name_constraints(certificate.ref, made, 0, &critical)
        if read == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE {
            gnutls_x509_name_constraints_deinit(made)
            return nil
        }
        guard read >= 0 else {
            gnutls_x509_name_constraints_deinit(made)
            throw TLSTrustError(.malformedCertificate, "GnuTLS cannot read the name constraints: \(GnuTLSLibrary.errorText(read))")
        }
        ref = made
    }

    deinit { gnutls_x509_name_constraints_deinit(ref) }

    /// GnuTLS's end-certificate check (`gnutls_x509_name_constraints_check_crt`), as its own chain
    /// verification applies it: every DNS, e-mail, IP and URI name and the subject DN, with the
    /// common name standing in for DNS names when there are none. Constraint types GnuTLS cannot
    /// evaluate (directoryName, URI) make it refuse.
    func permitsEndEntity(_ certificate: GnuTLSCertificate) -> Bool {
        let types = [GNUTLS_SAN_DNSNAME, GNUTLS_SAN_RFC822NAME, GNUTLS_SAN_IPADDRESS, GNUTLS_SAN_URI, GNUTLS_SAN_DN]
        return types.allSatisfy { gnutls_x509_name_constraints_check_crt(ref, $0, certificate.ref) != 0 }
    }

    /// The check for an intermediate CA below the constraining one: its subject alternative names
    /// only (OpenSSL does not read a CA's common name as a host name, and neither do we).
    func permitsNames(of certificate: Certificate) -> Bool {
        func permits(_ type: gnutls_x509_subject_alt_name_t, _ bytes: [UInt8]) -> Bool {
            GnuTLSLibrary.withDatum(bytes) { gnutls_x509_name_constraints_check(ref, type, &$0) != 0 }
        }
        return certificate.dnsNames.allSatisfy { permits(GNUTLS_SAN_DNSNAME, Array($0.utf8)) }
            && certificate.emailAddresses.allSatisfy { permits(GNUTLS_SAN_RFC822NAME, Array($0.utf8)) }
            && certificate.ipAddresses.allSatisfy { permits(GNUTLS_SAN_IPADDRESS, $0.bytes) }
            && certificate.uris.allSatisfy { permits(GNUTLS_SAN_URI, Array($0.utf8)) }
    }
}
