import Foundation

/// OCSP responses already parsed, by their bytes: a server staples the same response to every
/// handshake until it refreshes it, so each handshake after the first costs a lookup — and the
/// parsed response keeps its verified signers (``SignerMemo``), so its signature is checked once.
enum ParsedOCSPResponses {
    static let capacity = 256
    private static let cache = Locked<[[UInt8]: OCSPResponse]>([:])

    static func parse(_ bytes: [UInt8]) throws -> OCSPResponse {
        if let known = cache.withLock({ $0[bytes] }) { return known }
        let response = try OCSPResponse(derEncoded: bytes)
        cache.withLock { entries in
            if entries.count >= capacity, let victim = entries.keys.first { entries[victim] = nil }
            entries[bytes] = response
        }
        return response
    }
}

/// Answers fetched from the network, kept until their nextUpdate so that nothing is fetched again
/// while a current answer exists. OCSP responses are keyed by the certificate they answer for
/// (issuer key and serial); CRLs by the URL they came from. Bounded; the oldest entry goes first.
final class RevocationAnswerCache: Sendable {
    static let shared = RevocationAnswerCache()
    static let capacity = 1024

    private struct OCSPKey: Hashable { let issuerKey: [UInt8]; let serial: [UInt8] }
    private struct State {
        var ocsp: [OCSPKey: (OCSPResponse, Date)] = [:]
        var crls: [String: ([CertificateRevocationList], Date)] = [:]
    }
    private let state = Locked(State())

    private static func expiry(thisUpdate: Date, nextUpdate: Date?) -> Date {
        nextUpdate ?? thisUpdate.addingTimeInterval(RevocationClock.maximumAgeWithoutNextUpdate)
    }

    func insert(_ response: OCSPResponse, for certificate: Certificate, issuer: Certificate) {
        guard let single = response.responses.first(where: { $0.certID.identifies(certificate, issuedBy: issuer) }) else { return }
        let key = OCSPKey(issuerKey: issuer.publicKey.subjectPublicKeyInfoDER, serial: certificate.serialNumber)
        let until = Self.expiry(thisUpdate: single.thisUpdate, nextUpdate: single.nextUpdate)
        state.withLock { s in
            if s.ocsp.count >= Self.capacity, let victim = s.ocsp.min(by: { $0.value.1 < $1.value.1 })?.key { s.ocsp[victim] = nil }
            s.ocsp[key] = (response, until)
        }
    }

    /// Keeps the CRLs fetched from `url` that answered (a complete CRL and its delta, or the
    /// partitions that together cover every reason), until the first of them is due again.
    func insert(_ crls: [CertificateRevocationList], from url: String) {
        guard let until = crls.map({ Self.expiry(thisUpdate: $0.thisUpdate, nextUpdate: $0.nextUpdate) }).min() else { return }
        state.withLock { s in
            if s.crls.count >= Self.capacity, let victim = s.crls.min(by: { $0.value.1 < $1.value.1 })?.key { s.crls[victim] = nil }
            s.crls[url] = (Array(crls.prefix(8)), until)
        }
    }

    /// A fetched response for `certificate` still current at `date`.
    func ocspResponse(for certificate: Certificate, issuer: Certificate, at date: Date) -> OCSPResponse? {
        let key = OCSPKey(issuerKey: issuer.publicKey.subjectPublicKeyInfoDER, serial: certificate.serialNumber)
        return state.withLock { s in
            guard let (response, until) = s.ocsp[key] else { return nil }
            return date <= until ? response : nil
        }
    }

    /// Fetched CRLs from `certificate`'s distribution points still current at `date`.
    func crls(for certificate: Certificate, at date: Date) -> [CertificateRevocationList] {
        let urls = certificate.revocationPointers.crlDistributionPoints.flatMap(\.httpURLs)
        guard !urls.isEmpty else { return [] }
        return state.withLock { s in
            urls.flatMap { url in s.crls[url].map { date <= $0.1 ? $0.0 : [] } ?? [] }
        }
    }

    /// Forgets every fetched answer (tests, and apps that want to re-ask).
    public func removeAll() {
        state.withLock { $0 = State() }
    }
}
