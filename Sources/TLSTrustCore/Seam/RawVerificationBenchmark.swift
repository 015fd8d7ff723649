/// A benchmarking hook: a backend's library doing one chain's verification with its own C calls,
/// and nothing of TLSTrust in between, so that `tlstrust-dev bench` and `Benchmarks/` can put the
/// framework's cost next to the library's.
///
/// Made by `RawVerificationBenchmarking.makeRawVerificationBenchmark(leaf:intermediates:anchor:hostname:)`
/// before measurement: the anchor is prepared once (as a running program keeps its trust store),
/// the presented chain is kept as DER. Not for deciding trust: it reports only the library's yes or
/// no, with none of the engine's rules or the core's checks.
///
/// > Warning: a measurement aid. Never use ``verifyFromDER()`` to decide whether to trust a peer.
@_spi(Benchmarking)
public protocol RawVerificationBenchmark: AnyObject, Sendable {
    /// The library's own verification of the presented chain from DER, parsing included
    /// (`d2i_X509` + `X509_verify_cert`, `gnutls_x509_crt_import` +
    /// `gnutls_x509_trust_list_verify_crt2`, `mbedtls_x509_crt_parse_der` +
    /// `mbedtls_x509_crt_verify_with_profile`), with the host name and the serverAuth purpose.
    /// - Returns: whether the library accepted the chain.
    func verifyFromDER() -> Bool

    /// The signature floor: the chain's signature verifications (leaf by intermediate,
    /// intermediate by anchor) with keys imported before measurement, and nothing else.
    /// - Returns: whether both signatures verified.
    func verifySignatures() -> Bool
}
