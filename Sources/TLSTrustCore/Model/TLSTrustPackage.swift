/// The package's release: its semantic version (semver.org), as `tlstrust --version` prints it.
///
/// Kept in the core rather than in the tool so that an app can log which TLSTrust decided its
/// connections, and so that `CHANGELOG.md`, the tool and the library can never disagree: the
/// CLI tests compare ``version`` with the version `CHANGELOG.md` names (its newest release, or,
/// before the first release, the version its Unreleased section will be released as). Below 1.0.0 a
/// minor version may change public API (SemVer §4); patch versions never do.
///
/// (Not named `TLSTrustPackage`: the symbol-graph tool drops symbols named after the module
/// followed by "Version", the pattern of Apple's generated framework version symbols, so the
/// type would vanish from the documentation.)
public enum TLSTrustPackage {
    /// `MAJOR.MINOR.PATCH`, e.g. `0.1.0`.
    public static let version = "0.1.0"
}
