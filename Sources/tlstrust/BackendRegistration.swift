import TLSTrust
import TLSTrustMbedTLS
import TLSTrustOpenSSL

extension TLSTrustTool {
    /// Registers every backend this tool links, OpenSSL first (the process default).
    static func registerBackends() {
        TrustBackends.bootstrap(OpenSSLTrustBackend())
        TrustBackends.register(MbedTLSTrustBackend())
    }
}
