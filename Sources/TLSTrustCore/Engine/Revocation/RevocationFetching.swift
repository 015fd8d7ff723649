/// Fetches revocation answers, and the issuers a server left out, over the network, for the
/// engine, when the app allows it (``RevocationPolicy/allowsNetworkFetch``).
///
/// The engine asks only for what it lacks: no fetch when a fresh stapled, given or cached answer
/// exists. Every call must end by `deadline`, bound what it reads, and fail closed with a thrown
/// ``TLSTrustError`` (which the engine records as "no usable answer", never as trust).
public protocol RevocationFetching: Sendable {
    /// Sends a DER `OCSPRequest` to a responder (RFC 6960 Appendix A.1, HTTP) and returns the body
    /// of its answer, which the engine parses and verifies.
    func fetchOCSPResponse(request: [UInt8], responderURL: String, deadline: ContinuousClock.Instant) throws -> [UInt8]

    /// Downloads a CRL (DER or PEM) from a distribution point's HTTP URL.
    func fetchCRL(from url: String, deadline: ContinuousClock.Instant) throws -> [UInt8]

    /// Downloads what a certificate's authorityInfoAccess caIssuers URL serves (RFC 5280
    /// §4.2.2.1): a DER certificate or a certs-only PKCS#7 bundle, which the engine reads
    /// (``IssuerCertificates``) and treats as untrusted intermediates.
    func fetchIssuerCertificates(from url: String, deadline: ContinuousClock.Instant) throws -> [UInt8]
}

extension RevocationFetching {
    /// A fetcher written before issuers could be fetched fetches none: the engine records why and
    /// builds paths with what it has.
    public func fetchIssuerCertificates(from url: String, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        throw TLSTrustError(.unsupported, "\(url): this fetcher does not fetch issuer certificates")
    }
}
