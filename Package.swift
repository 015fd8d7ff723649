// swift-tools-version: 6.1
//
// TLSTrust: certificate-trust evaluation for Swift on Linux, in the spirit of Apple's
// Security.framework (SecTrust, SecPolicy, pinning), over pluggable TLS-library backends.
//
// The core (`TLSTrust`) imports no C module. Each backend is a pair of targets in `Backends/`:
// a system-library target wrapping the C library and a Swift target implementing `TrustBackend`.
import PackageDescription

let package = Package(
    name: "TLSTrust",
    products: [
        .library(name: "TLSTrust", targets: ["TLSTrust"]),
        // The engine alone (model, backend seam, validation engine, `Trust`), for a backend or a
        // tool that needs no evaluator and no connection; `TLSTrust` re-exports it.
        .library(name: "TLSTrustCore", targets: ["TLSTrustCore"]),
        .library(name: "TLSTrustOpenSSL", targets: ["TLSTrustOpenSSL"]),
        .library(name: "TLSTrustGnuTLS", targets: ["TLSTrustGnuTLS"]),
        .library(name: "TLSTrustMbedTLS", targets: ["TLSTrustMbedTLS"]),
        // A signature provider over swift-crypto (no C library, no TLS, no native verifier), written
        // against the public API only. An empty module unless the `SwiftCrypto` trait is enabled.
        .library(name: "TLSTrustSwiftCrypto", targets: ["TLSTrustSwiftCrypto"]),
        // The suite a backend author runs on a provider: signature vectors per scheme, malformed
        // keys, and the engine's verdicts against a reference backend (docs/backends.md).
        .library(name: "TLSTrustBackendConformance", targets: ["TLSTrustBackendConformance"]),
        // Minting for tests: certificates, CRLs, OCSP responses and PKCS#12 files made at test time
        // relative to now (X509Builder, CRLBuilder, OCSPResponseBuilder, TestPKI, TestHierarchy),
        // in pure Swift; the keys come from a key source product below (docs/architecture.md).
        .library(name: "TLSTrustPKI", targets: ["TLSTrustPKI", "TLSTrustPKIHandshake"]),
        // The minting kit's keys in OpenSSL (every key type and size); links libcrypto.
        .library(name: "TLSTrustPKIOpenSSL", targets: ["TLSTrustPKIOpenSSL"]),
        // The minting kit's keys in swift-crypto, no system library. An empty module unless the
        // `SwiftCrypto` trait is enabled.
        .library(name: "TLSTrustPKISwiftCrypto", targets: ["TLSTrustPKISwiftCrypto"]),
        // Apple's trust API over TLSTrust, so that `#if canImport(Security)` code recompiles on Linux,
        // and CommonCrypto's digests. Modules with Apple's names, built only for an app that names
        // these products; nothing else in the package depends on them (docs/porting.md).
        .library(name: "Security", targets: ["Security"]),
        .library(name: "CommonCrypto", targets: ["CommonCrypto"]),
        // The same digests under a TLSTrust name, for an app that also builds swift-crypto 4's CryptoExtras.
        .library(name: "TLSTrustCommonCrypto", targets: ["TLSTrustCommonCrypto"]),
        .executable(name: "tlstrust", targets: ["tlstrust"]),
        // SwiftNIO / AsyncHTTPClient integrations. Empty modules unless the `NIO` trait is enabled
        // (see docs/nio.md), so that the core and the backends never build swift-nio-ssl.
        .library(name: "TLSTrustNIO", targets: ["TLSTrustNIO"]),
        .library(name: "TLSTrustAsyncHTTPClient", targets: ["TLSTrustAsyncHTTPClient"]),
    ],
    traits: [
        .trait(
            name: "NIO",
            description: "Builds TLSTrustNIO (swift-nio-ssl) and TLSTrustAsyncHTTPClient (AsyncHTTPClient) for real; without it they are empty modules and NIO is not compiled."
        ),
        .trait(
            name: "SwiftCrypto",
            description: "Builds TLSTrustSwiftCrypto (the `swift-crypto` backend over swift-crypto) for real and registers it in the tool; without it the module is empty and swift-crypto is not compiled."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Documentation only (`swift package generate-documentation --target TLSTrust`): a command
        // plugin, built when invoked, never by `swift build`.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Only with the `NIO` trait: every product of these is used under `.when(traits: ["NIO"])`.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Only with the `SwiftCrypto` trait (`Crypto`, `_CryptoExtras` under `.when(traits:)`), so an
        // app without the trait resolves swift-crypto 4 beside TLSTrust (`Tests/AppWithSwiftCrypto4`).
        // 3.x for the trait: swift-crypto 4's `_RSA.Signing.PublicKey(n:e:)` refuses keys below
        // 2048 bits, which the engine must see verified and then refuse itself (weakAlgorithm), so
        // the backend's verdicts on such chains would differ from the other backends'.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // MARK: Core (pure Swift): three modules in layers, and the product's umbrella
        // The model, the backend seam, the validation engine, `Trust`, and the plain-HTTP fetcher
        // of revocation answers and missing issuers.
        .target(
            name: "TLSTrustCore",
            path: "Sources/TLSTrustCore"
        ),
        // What an app decides with the engine's answer: evaluators, pin sets, configuration
        // importers, logging.
        .target(
            name: "TLSTrustDecisions",
            dependencies: ["TLSTrustCore", .product(name: "Logging", package: "swift-log")],
            path: "Sources/TLSTrustDecisions"
        ),
        // TLS sessions on every backend, challenges, the HTTPS client, the pin-report POSTer
        // (the only user of FoundationNetworking).
        .target(
            name: "TLSTrustConnections",
            dependencies: ["TLSTrustCore", "TLSTrustDecisions"],
            path: "Sources/TLSTrustConnections"
        ),
        // `import TLSTrust`: re-exports the three.
        .target(
            name: "TLSTrust",
            dependencies: ["TLSTrustCore", "TLSTrustDecisions", "TLSTrustConnections"],
            path: "Sources/TLSTrust"
        ),

        // MARK: OpenSSL 3
        .systemLibrary(
            name: "COpenSSL",
            path: "Backends/COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "TLSTrustOpenSSL",
            dependencies: ["TLSTrust", "COpenSSL"],
            path: "Backends/TLSTrustOpenSSL"
        ),

        // MARK: GnuTLS 3.7
        .systemLibrary(
            name: "CGnuTLS",
            path: "Backends/CGnuTLS",
            pkgConfig: "gnutls",
            providers: [.apt(["libgnutls28-dev"])]
        ),
        .target(
            name: "TLSTrustGnuTLS",
            dependencies: ["TLSTrust", "CGnuTLS"],
            path: "Backends/TLSTrustGnuTLS"
        ),

        // MARK: mbedTLS 2.28 (Debian ships no pkg-config file; the module map links by name)
        .systemLibrary(
            name: "CMbedTLS",
            path: "Backends/CMbedTLS",
            providers: [.apt(["libmbedtls-dev"])]
        ),
        .target(
            name: "TLSTrustMbedTLS",
            dependencies: ["TLSTrust", "CMbedTLS"],
            path: "Backends/TLSTrustMbedTLS"
        ),

        // MARK: swift-crypto (trait `SwiftCrypto`; every source file is `#if SwiftCrypto`)
        // Imports only TLSTrust's public API and swift-crypto, as a backend written outside this
        // package would: the worked example of the DocC article "Writing a backend".
        .target(
            name: "TLSTrustSwiftCrypto",
            dependencies: [
                "TLSTrustCore",
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
            ],
            path: "Backends/TLSTrustSwiftCrypto"
        ),

        // MARK: Conformance kit for backend authors (no test framework: returns findings)
        .target(
            name: "TLSTrustBackendConformance",
            dependencies: ["TLSTrustCore", "TLSTrustPKI"],
            path: "Sources/TLSTrustBackendConformance"
        ),

        // MARK: Minting kit for tests (product TLSTrustPKI: pure Swift; keys from a key source)
        .target(
            name: "TLSTrustPKI",
            dependencies: ["TLSTrustCore"],
            path: "Sources/TLSTrustPKI"
        ),
        // Handshake fixtures (a client and a server configuration over in-memory pipes) for the
        // handshake benchmarks: apart from the kit, so that what needs only certificates (the
        // conformance kit) does not link the connections layer.
        .target(
            name: "TLSTrustPKIHandshake",
            dependencies: ["TLSTrust", "TLSTrustPKI"],
            path: "Sources/TLSTrustPKIHandshake"
        ),
        // The key source over OpenSSL's EVP: what this repository's tests mint with.
        .target(
            name: "TLSTrustPKIOpenSSL",
            dependencies: ["TLSTrustPKI", "COpenSSL"],
            path: "Sources/TLSTrustPKIOpenSSL"
        ),
        // The key source over swift-crypto (trait `SwiftCrypto`; every source file is `#if SwiftCrypto`).
        .target(
            name: "TLSTrustPKISwiftCrypto",
            dependencies: [
                "TLSTrustPKI",
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
            ],
            path: "Sources/TLSTrustPKISwiftCrypto"
        ),
        // An HTTPS origin and an interception proxy on 127.0.0.1: what `tlstrust demo` runs, and
        // what tests connect to. In no product of its own; it ships inside `tlstrust`.
        .target(
            name: "TLSTrustLocalServers",
            dependencies: ["TLSTrust", "TLSTrustPKI"],
            path: "Sources/TLSTrustLocalServers"
        ),

        // MARK: Apple's Security API (`import Security`) and CommonCrypto digests, for porting
        // `SecurityTLSTrust` and `TLSTrustCommonCrypto` implement them; `Security` and `CommonCrypto`
        // only re-export them, so the modules a port imports have Apple's names while the
        // implementations keep TLSTrust names, and no target but those two shims has Apple's name.
        .target(
            name: "SecurityTLSTrust",
            dependencies: ["TLSTrust", "TLSTrustOpenSSL", "TLSTrustCommonCrypto"],
            path: "Sources/SecurityTLSTrust"
        ),
        .target(name: "Security", dependencies: ["SecurityTLSTrust"], path: "Sources/Security"),
        // The digests come from OpenSSL's EVP interface (libcrypto), not from a hand-written hash.
        .target(name: "TLSTrustCommonCrypto", dependencies: ["COpenSSL"], path: "Sources/TLSTrustCommonCrypto"),
        // With the `SwiftCrypto` trait it is built after `_CryptoExtras` (an ordering edge only, it
        // uses nothing of it): CryptoExtras compiles `#if canImport(CommonCrypto)` code, and would
        // find this module instead of Apple's if it were already built. This package's own build is
        // the only one that builds both; an app gets this module only by naming its product.
        .target(
            name: "CommonCrypto",
            dependencies: [
                "TLSTrustCommonCrypto",
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
            ],
            path: "Sources/CommonCrypto"
        ),

        // MARK: Command-line tool
        // What `tlstrust` and `tlstrust-dev` share: the backends they register, file input, escaping
        // of untrusted text for the terminal. In no product of its own.
        .target(
            name: "TLSTrustToolSupport",
            dependencies: [
                "TLSTrust", "TLSTrustOpenSSL", "TLSTrustGnuTLS", "TLSTrustMbedTLS", "TLSTrustSwiftCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/TLSTrustToolSupport"
        ),
        // The user's tool: it links the PKI kit and the local servers for `demo`, no test harness.
        .executableTarget(
            name: "tlstrust",
            dependencies: [
                "TLSTrust", "TLSTrustToolSupport", "TLSTrustPKI", "TLSTrustPKIOpenSSL", "TLSTrustLocalServers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/tlstrust"
        ),

        // MARK: SwiftNIO and AsyncHTTPClient (trait `NIO`; every source file is `#if NIO`)
        .target(
            name: "TLSTrustNIO",
            dependencies: [
                "TLSTrust",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOTLS", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["NIO"])),
            ],
            path: "Sources/TLSTrustNIO"
        ),
        .target(
            name: "TLSTrustAsyncHTTPClient",
            dependencies: [
                "TLSTrust", "TLSTrustNIO",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["NIO"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["NIO"])),
            ],
            path: "Sources/TLSTrustAsyncHTTPClient"
        ),

        // MARK: Tests and the workshop (in no product)
        // The CI harness (deadlines for a loaded machine, work off the cooperative pool, external TLS
        // peers, a scripted HTTP server), re-exporting TLSTrustPKI and TLSTrustLocalServers.
        .target(
            name: "TLSTrustTesting",
            dependencies: ["TLSTrust", "TLSTrustPKI", "TLSTrustPKIHandshake", "TLSTrustPKIOpenSSL", "TLSTrustLocalServers"],
            path: "Tests/TLSTrustTesting"
        ),
        // The developer commands: `swift run tlstrust-dev bench | soak | conformance`.
        .executableTarget(
            name: "tlstrust-dev",
            dependencies: [
                "TLSTrust", "TLSTrustToolSupport", "TLSTrustTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/tlstrust-dev"
        ),
        // The conformance kit on the swift-crypto backend with swift-crypto's keys and no system TLS
        // library linked (trait `SwiftCrypto`): what `.ci/kit-without-openssl` checks and runs.
        .executableTarget(
            name: "conformance-kit-swift-crypto",
            dependencies: ["TLSTrustBackendConformance", "TLSTrustPKI", "TLSTrustPKISwiftCrypto", "TLSTrustSwiftCrypto"],
            path: "Tests/conformance-kit-swift-crypto"
        ),
        // The one list of backends every test target runs on (`TestBackends.all`, `.names`,
        // `.named(_:)`); test support only, in no product.
        .target(
            name: "TLSTrustTestBackends",
            dependencies: ["TLSTrust", "TLSTrustOpenSSL", "TLSTrustGnuTLS", "TLSTrustMbedTLS"],
            path: "Tests/TestBackends"
        ),
        .testTarget(
            name: "TLSTrustTests",
            dependencies: [
                "TLSTrust", "TLSTrustTesting", "TLSTrustOpenSSL", "TLSTrustGnuTLS", "TLSTrustMbedTLS", "TLSTrustTestBackends",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TLSTrustConformanceTests",
            dependencies: ["TLSTrust", "TLSTrustTesting", "TLSTrustOpenSSL", "TLSTrustGnuTLS", "TLSTrustMbedTLS", "TLSTrustTestBackends"]
        ),
        // The differential tester (docs/validation.md): generated chains, the engine against
        // OpenSSL's X509_verify_cert and GnuTLS's verifier in process. `run` is the long pass.
        .testTarget(
            name: "TLSTrustDifferentialTests",
            dependencies: ["TLSTrust", "TLSTrustTesting", "TLSTrustTestBackends", "TLSTrustOpenSSL", "COpenSSL"],
            path: "Tests/Differential",
            exclude: ["run"]
        ),
        .testTarget(
            name: "SecurityTests",
            dependencies: ["Security", "CommonCrypto", "TLSTrust", "TLSTrustTesting", "TLSTrustOpenSSL", "TLSTrustGnuTLS", "TLSTrustMbedTLS", "TLSTrustTestBackends"]
        ),
        // The conformance kit on every in-tree backend (reference: openssl), and on swift-crypto
        // with the trait: `swift test --traits SwiftCrypto --filter TLSTrustBackendConformanceTests`.
        .testTarget(
            name: "TLSTrustBackendConformanceTests",
            dependencies: [
                "TLSTrust", "TLSTrustPKI", "TLSTrustPKIOpenSSL", "TLSTrustPKISwiftCrypto", "TLSTrustBackendConformance",
                "TLSTrustTestBackends", "TLSTrustOpenSSL", "TLSTrustSwiftCrypto",
            ]
        ),
        .testTarget(
            name: "TLSTrustCLITests",
            dependencies: ["TLSTrust", "TLSTrustTesting", "TLSTrustOpenSSL", "TLSTrustTestBackends", "TLSTrustToolSupport", "tlstrust", "tlstrust-dev"]
        ),
        // A real NIO TLS server on 127.0.0.1; empty without the `NIO` trait:
        // `swift test --traits NIO --filter TLSTrustNIOTests`.
        .testTarget(
            name: "TLSTrustNIOTests",
            dependencies: [
                "TLSTrust", "TLSTrustTesting", "TLSTrustOpenSSL", "TLSTrustNIO", "TLSTrustAsyncHTTPClient",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOTLS", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["NIO"])),
                .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: .when(traits: ["NIO"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["NIO"])),
            ]
        ),
    ]
)
