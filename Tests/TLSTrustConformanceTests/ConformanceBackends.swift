import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL

/// Every backend the conformance suite and the differential test run against.
enum ConformanceBackends {
    static let all: [any TrustBackend] = [OpenSSLTrustBackend(), GnuTLSTrustBackend(), MbedTLSTrustBackend()]

    static var names: [String] { all.map(\.name) }

    static func named(_ name: String) -> any TrustBackend {
        all.first { $0.name == name }!
    }
}
