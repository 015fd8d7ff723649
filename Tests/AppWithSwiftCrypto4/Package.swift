// swift-tools-version: 6.1
//
// An app that depends on TLSTrust and on swift-crypto 4 together, and ports Apple code with
// `import Security`: the build that proves this package names no module after an Apple module
// unless the app asks for it. swift-crypto 4's CryptoExtras compiles `#if canImport(CommonCrypto)`
// code (PBKDF2); were a module of that name in this build, CryptoExtras would import it instead
// of Apple's and fail. `Security` is asked for here, and builds no `CommonCrypto` module.
//
// Built and run by .ci/run: `swift run --package-path Tests/AppWithSwiftCrypto4`.
import PackageDescription

let package = Package(
    name: "AppWithSwiftCrypto4",
    dependencies: [
        .package(name: "TLSTrust", path: "../.."),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        .executableTarget(
            name: "App",
            dependencies: [
                .product(name: "TLSTrust", package: "TLSTrust"),
                .product(name: "Security", package: "TLSTrust"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/App"
        ),
    ]
)
