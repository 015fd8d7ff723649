/// Fetches revocation answers over the network, for the engine, when the app allows it
/// (``RevocationPolicy/allowsNetworkFetch``).
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
}
