import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL

/// The one list of backends the test targets run on. Every backend-parameterised test takes its
/// backends from here, so that a new backend is tested everywhere by adding it to `makers` alone.
///
/// Swift Testing arguments must be `Sendable` and readable in the test list, so tests are
/// parameterised over `names` and turn a name into a backend with `named(_:)`.
public enum TestBackends {
    /// How to make each backend, in the order tests list them.
    static let makers: [@Sendable () -> any TrustBackend] = [
        { OpenSSLTrustBackend() },
        { GnuTLSTrustBackend() },
        { MbedTLSTrustBackend() },
    ]

    /// One instance of every backend, shared by the suites that compare verdicts across backends.
    public static let all: [any TrustBackend] = makers.map { $0() }

    /// Every backend's `name` ("openssl", "gnutls", "mbedtls"), in the order of `all`.
    public static let names: [String] = all.map(\.name)

    /// A fresh instance of the backend called `name`; a name that is not in `names` is a mistake
    /// in the test and stops it.
    public static func named(_ name: String) -> any TrustBackend {
        guard let index = names.firstIndex(of: name) else {
            preconditionFailure("no test backend is called \(name); the backends are \(names)")
        }
        return makers[index]()
    }

    /// The backend called `name` as a TLS backend, or nil if it cannot run TLS.
    public static func tls(_ name: String) -> (any TLSBackend)? {
        named(name) as? any TLSBackend
    }

    /// The names of the backends that run TLS connections (a `TLSBackend`), in the order of `names`.
    public static let tlsNames: [String] = names.filter { tls($0) != nil }

    /// Every TLS backend with each TLS version it negotiates.
    public static let tlsVersions: [(String, TLSVersion)] = tlsNames.flatMap { name in
        TLSVersion.allCases.filter { tls(name)!.supportedTLSVersions.contains($0) }.map { (name, $0) }
    }
}
