import TLSTrustCore
// TrustKit's configuration keys, with TrustKit's names and values (TSKTrustKitConfig.h), so that
// a configuration written in code for TrustKit compiles unchanged against
// `PinningConfiguration(trustKitConfiguration:)`.

/// `TSKSwizzleNetworkDelegates` (global; accepted, TLSTrust does not swizzle).
public let kTSKSwizzleNetworkDelegates = "TSKSwizzleNetworkDelegates"
/// `TSKPinnedDomains` (global): domain name → domain configuration.
public let kTSKPinnedDomains = "TSKPinnedDomains"
/// `TSKIgnorePinningForUserDefinedTrustAnchors` (global; only false is accepted, see
/// ``PinningConfiguration/init(trustKitConfiguration:)``).
public let kTSKIgnorePinningForUserDefinedTrustAnchors = "TSKIgnorePinningForUserDefinedTrustAnchors"
/// `TSKPublicKeyHashes`: base64 SHA-256 digests of SubjectPublicKeyInfo, at least two.
public let kTSKPublicKeyHashes = "TSKPublicKeyHashes"
/// `TSKEnforcePinning`: false is report-only (default true).
public let kTSKEnforcePinning = "TSKEnforcePinning"
/// The exclusion of a subdomain from its parent's policy. TrustKit's value really is
/// `kSKExcludeSubdomainFromParentPolicy` (without the T), and it is kept so that code written for
/// TrustKit means the same here.
public let kTSKExcludeSubdomainFromParentPolicy = "kSKExcludeSubdomainFromParentPolicy"
/// `TSKIncludeSubdomains` (default false).
public let kTSKIncludeSubdomains = "TSKIncludeSubdomains"
/// `TSKPublicKeyAlgorithms` (accepted; TrustKit itself ignores it since 1.6).
public let kTSKPublicKeyAlgorithms = "TSKPublicKeyAlgorithms"
/// `TSKReportUris`: where pin failures are reported.
public let kTSKReportUris = "TSKReportUris"
/// `TSKDisableDefaultReportUri` (accepted; TLSTrust has no default report URI).
public let kTSKDisableDefaultReportUri = "TSKDisableDefaultReportUri"
/// `TSKExpirationDate`: `yyyy-MM-dd`, after which the pins no longer apply.
public let kTSKExpirationDate = "TSKExpirationDate"
