// swift-tools-version: 6.1
//
// libFuzzer + AddressSanitizer targets for TLSTrust. A package of its own so that the
// root package's `swift build` / `swift test` never build with the fuzzer sanitizer.
//
// Build and run with the `run` script beside this file (it passes the sanitizer flags):
//   Tests/Fuzz/run 60                      # every target, 60 s each
//   Tests/Fuzz/run 300 Chain PKCS12        # some targets
//
// Each target is an executable whose entry point is libFuzzer's `main`; the Swift side provides
// `LLVMFuzzerTestOneInput` and `LLVMFuzzerInitialize` (which also implements `--make-seeds DIR`).
import PackageDescription

/// What every target links of TLSTrust: the core, the three backends and the minting kit.
let tlsTrustProducts: [Target.Dependency] = [
    "TLSTrust", "TLSTrustCore", "TLSTrustOpenSSL", "TLSTrustGnuTLS", "TLSTrustMbedTLS", "TLSTrustPKI", "TLSTrustPKIOpenSSL",
].map { .product(name: $0, package: "TLSTrust") }

let fuzzTargets = ["CertificateDER", "CertificatePEM", "Chain", "PKCS12", "PinningConfiguration", "ClientHello", "OCSPResponse", "CRL"]

let package = Package(
    name: "TLSTrustFuzz",
    products: fuzzTargets.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(name: "TLSTrust", path: "../.."),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: tlsTrustProducts),
    ] + fuzzTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport"] + tlsTrustProducts,
            // No top-level code: libFuzzer's runtime provides `main`.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
