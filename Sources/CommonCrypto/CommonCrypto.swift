// `import CommonCrypto` on Linux: CommonCrypto's message digests with Apple's Swift signatures,
// implemented in `TLSTrustCommonCrypto`. See docs/porting.md.
//
// This module only re-exports the implementation. It has Apple's module name, so it is built only
// for an app that asks for the `CommonCrypto` product: a module of this name in a build makes
// every `#if canImport(CommonCrypto)` there true (swift-crypto's CryptoExtras has one), so nothing
// else in this package depends on it.
@_exported import TLSTrustCommonCrypto
