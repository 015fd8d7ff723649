/// The package's semantic version (semver.org), as `tlstrust --version` prints it.
///
/// Kept in the core rather than in the tool so that an app can log which TLSTrust decided its
/// connections, and so that `CHANGELOG.md`, the tool and the library can never disagree: the
/// CLI tests compare this constant with the newest version heading of `CHANGELOG.md`.
/// Below 1.0.0 a minor version may change public API (SemVer §4); patch versions never do.
public enum TLSTrustVersion {
    /// `MAJOR.MINOR.PATCH`, e.g. `0.1.0`.
    public static let string = "0.1.0"

    /// The three numbers, for comparisons.
    public static let components: (major: Int, minor: Int, patch: Int) = (0, 1, 0)
}
