import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL

extension TLSTrustTool {
    /// Registers every backend this tool links, OpenSSL first (the process default).
    static func registerBackends() {
        TrustBackends.bootstrap(OpenSSLTrustBackend())
        TrustBackends.register(GnuTLSTrustBackend())
        TrustBackends.register(MbedTLSTrustBackend())
    }
}
