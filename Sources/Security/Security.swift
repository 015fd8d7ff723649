// `import Security` on Linux: Apple's certificate-trust API (SecCertificate, SecTrust, SecPolicy,
// SecKey) and the CoreFoundation types it speaks, implemented over TLSTrust in `SecurityTLSTrust`.
//
// This module only re-exports the implementation, so that code guarded by
// `#if canImport(Security)` compiles unchanged. See docs/porting.md.
@_exported import SecurityTLSTrust
