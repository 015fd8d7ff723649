import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
#if SwiftCrypto
import TLSTrustSwiftCrypto
#endif

/// The backends `tlstrust` and `tlstrust-dev` offer by name (`--backend`), in one place.
package enum ToolBackends {
    /// Registers every backend the tools link, OpenSSL first (the process default). The
    /// swift-crypto backend only when built with the `SwiftCrypto` trait.
    package static func register() {
        TrustBackends.bootstrap(OpenSSLTrustBackend())
        TrustBackends.register(GnuTLSTrustBackend())
        TrustBackends.register(MbedTLSTrustBackend())
        #if SwiftCrypto
        TrustBackends.register(SwiftCryptoTrustBackend())
        #endif
    }
}
