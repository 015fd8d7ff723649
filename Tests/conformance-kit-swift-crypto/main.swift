// The backend conformance kit as a backend author without OpenSSL runs it: the swift-crypto
// backend, keys from swift-crypto, verdicts against the catalogue's expectations, and no system
// TLS library linked (`.ci/kit-without-openssl` checks the binary with `ldd`, then runs it).
// Exits 0 when every check passes or is skipped with a reason, 1 on any finding.
import Foundation

#if SwiftCrypto
import TLSTrustBackendConformance
import TLSTrustPKI
import TLSTrustPKISwiftCrypto
import TLSTrustSwiftCrypto

let keys = try TestKeySources.current
let report = try BackendConformance.run(SwiftCryptoTrustBackend(), keys: SwiftCryptoKeySource())
print("key source in effect without one given: \(keys.name)")
print(report)
let checked = report.checks.values.reduce(0, +)
if keys.name != "swift-crypto" || !report.conforms || checked == 0 {
    print("FAILED: \(checked) checks, \(report.findings.count) findings, key source \(keys.name)")
    exit(1)
}
#else
print("built without the SwiftCrypto trait: `swift run --traits SwiftCrypto conformance-kit-swift-crypto`")
exit(2)
#endif
