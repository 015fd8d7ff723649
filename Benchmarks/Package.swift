// swift-tools-version: 6.1
//
// Evaluation throughput of TLSTrust's backends, measured with ordo-one/benchmark.
// Its own package, so that the benchmark tooling never enters the library's build.
//
//   cd Benchmarks && swift package benchmark
//   swift package benchmark --filter "evaluate.*"   # one group
import PackageDescription

let package = Package(
    name: "TLSTrustBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "TLSTrust", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // The fastest pure-Swift verifier, measured on the same chains for comparison only.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        .executableTarget(
            name: "TrustEvaluation",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TLSTrust", package: "TLSTrust"),
                .product(name: "TLSTrustCore", package: "TLSTrust"),
                .product(name: "TLSTrustOpenSSL", package: "TLSTrust"),
                .product(name: "TLSTrustGnuTLS", package: "TLSTrust"),
                .product(name: "TLSTrustMbedTLS", package: "TLSTrust"),
                .product(name: "TLSTrustPKI", package: "TLSTrust"),
                .product(name: "TLSTrustPKIOpenSSL", package: "TLSTrust"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Benchmarks/TrustEvaluation",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
