import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `inspect --json`: one document, one item per certificate, CRL, OCSP response or other input
/// recognised in the files, and one per live server (`https://`).
///
/// Every item has every key of its kind, `null` when it has no value; `kind` says which of
/// `certificate`, `crl`, `ocspResponse`, `server`, … is filled.
enum InspectJSON {
    struct Document: Encodable {
        var schemaVersion = ToolJSON.schemaVersion
        let items: [Item]
    }

    struct Item: Encodable {
        /// `certificate`, `crl`, `ocspResponse`, `pkcs12`, `privateKey`, `pemBlock` or `server`.
        let kind: String
        /// The file, or null for a live server.
        @ExplicitNull var file: String?
        /// The certificate's position in its file (1-based); null for other kinds.
        @ExplicitNull var index: Int?
        @ExplicitNull var certificate: CertificateRecord?
        @ExplicitNull var crl: CRLRecord?
        @ExplicitNull var ocspResponse: OCSPRecord?
        @ExplicitNull var server: ServerRecord?

        init(file: String, index: Int, certificate: Certificate) {
            kind = "certificate"
            self.file = file
            self.index = index
            self.certificate = CertificateRecord(certificate)
        }

        init(file: String, other: OtherInput) {
            kind = other.kind
            self.file = file
            switch other {
            case .crl(let crl): self.crl = CRLRecord(crl)
            case .ocspResponse(let response): ocspResponse = OCSPRecord(response)
            case .pkcs12, .pem: break
            }
        }

        init(url: String, backend: String, presented: [Certificate], evaluation: TrustEvaluation) {
            kind = "server"
            server = ServerRecord(url: url, backend: backend, presented: presented.map(CertificateRecord.init),
                                  trusted: evaluation.isTrusted,
                                  chain: evaluation.chain.map { .init(subject: $0.subject.description, publicKeyPin: $0.publicKey.pin) },
                                  failures: evaluation.failures.map { .init(code: $0.code.identifier, certificateIndex: $0.certificateIndex, detail: $0.detail) })
        }
    }

    /// What `inspect` shows of a certificate.
    struct CertificateRecord: Encodable {
        let subject: String
        let issuer: String
        let serialNumber: String
        let version: Int
        let notValidBefore: String
        let notValidAfter: String
        let publicKeyAlgorithm: String
        let publicKeyPin: String
        let signatureAlgorithm: String
        let sha256Fingerprint: String
        @ExplicitNull var subjectKeyIdentifier: String?
        let dnsNames: [String]
        let ipAddresses: [String]
        let emailAddresses: [String]
        let isCertificateAuthority: Bool
        @ExplicitNull var pathLengthConstraint: Int?
        @ExplicitNull var keyUsage: [String]?
        @ExplicitNull var extendedKeyUsage: [String]?
        let ocspResponders: [String]
        let crlDistributionPoints: [String]
        let warnings: [String]

        init(_ c: Certificate) {
            subject = c.subject.description
            issuer = c.issuer.description
            serialNumber = ToolJSON.hex(c.serialNumber)
            version = c.version
            notValidBefore = ToolJSON.instant(c.notValidBefore)
            notValidAfter = ToolJSON.instant(c.notValidAfter)
            publicKeyAlgorithm = c.publicKey.algorithm.description
            publicKeyPin = c.publicKey.pin
            signatureAlgorithm = c.signatureAlgorithm.name
            sha256Fingerprint = ToolJSON.hex(c.sha256Fingerprint)
            subjectKeyIdentifier = c.subjectKeyIdentifier.map(ToolJSON.hex)
            dnsNames = c.dnsNames
            ipAddresses = c.ipAddresses.map(\.description)
            emailAddresses = c.emailAddresses
            isCertificateAuthority = c.isCertificateAuthority
            pathLengthConstraint = c.basicConstraints?.pathLengthConstraint
            keyUsage = c.keyUsage?.names
            extendedKeyUsage = c.extendedKeyUsage?.map(InspectCommand.ekuName)
            ocspResponders = c.revocationPointers.ocspResponders
            crlDistributionPoints = c.revocationPointers.crlDistributionPoints.flatMap(\.fullName).map(\.description)
            warnings = c.lint().map { "\($0.code): \($0.message)" }
        }
    }

    struct CRLRecord: Encodable {
        struct Entry: Encodable {
            let serialNumber: String
            let revocationTime: String
            @ExplicitNull var reason: String?
        }
        let issuer: String
        let thisUpdate: String
        @ExplicitNull var nextUpdate: String?
        @ExplicitNull var crlNumber: String?
        let isDelta: Bool
        let entries: [Entry]

        init(_ crl: CertificateRevocationList) {
            issuer = crl.issuer.description
            thisUpdate = ToolJSON.instant(crl.thisUpdate)
            nextUpdate = crl.nextUpdate.map(ToolJSON.instant)
            crlNumber = crl.crlNumber.map(ToolJSON.hex)
            isDelta = crl.isDelta
            entries = crl.entries.map {
                .init(serialNumber: ToolJSON.hex($0.serialNumber), revocationTime: ToolJSON.instant($0.revocationDate),
                      reason: $0.reason.map { "\($0)" })
            }
        }
    }

    struct OCSPRecord: Encodable {
        struct Single: Encodable {
            let serialNumber: String
            /// `good`, `revoked` or `unknown`.
            let status: String
            let thisUpdate: String
            @ExplicitNull var nextUpdate: String?
        }
        /// `successful`, `tryLater`, … (RFC 6960 OCSPResponseStatus, camelCase).
        let responseStatus: String
        @ExplicitNull var responder: String?
        @ExplicitNull var producedAt: String?
        let responses: [Single]
        let certificateCount: Int

        init(_ response: OCSPResponse) {
            responseStatus = response.status.description
            responder = response.responderID?.description
            producedAt = response.producedAt.map(ToolJSON.instant)
            responses = response.responses.map { single in
                let status: String
                switch single.status {
                case .good: status = "good"
                case .revoked: status = "revoked"
                case .unknown: status = "unknown"
                }
                return .init(serialNumber: ToolJSON.hex(single.certID.serialNumber), status: status,
                             thisUpdate: ToolJSON.instant(single.thisUpdate), nextUpdate: single.nextUpdate.map(ToolJSON.instant))
            }
            certificateCount = response.certificates.count
        }
    }

    struct ServerRecord: Encodable {
        struct Link: Encodable { let subject: String; let publicKeyPin: String }
        struct Failure: Encodable {
            let code: String
            @ExplicitNull var certificateIndex: Int?
            let detail: String
        }
        let url: String
        let backend: String
        let presented: [CertificateRecord]
        let trusted: Bool
        /// The chain built (trusted) or the best chain built (not trusted), leaf first.
        let chain: [Link]
        let failures: [Failure]
    }
}
