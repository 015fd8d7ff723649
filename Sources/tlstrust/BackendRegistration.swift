import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
#if SwiftCrypto
import TLSTrustSwiftCrypto
#endif

extension TLSTrustTool {
    /// Registers every backend this tool links, OpenSSL first (the process default). The
    /// swift-crypto backend only when built with the `SwiftCrypto` trait.
    static func registerBackends() {
        TrustBackends.bootstrap(OpenSSLTrustBackend())
        TrustBackends.register(GnuTLSTrustBackend())
        TrustBackends.register(MbedTLSTrustBackend())
        #if SwiftCrypto
        TrustBackends.register(SwiftCryptoTrustBackend())
        #endif
    }
}
