/// Whether the public suffix list was found, for tools and start-up checks.
///
/// The wildcard rule depends on it: a certificate's `*.name` never matches when `name` is a
/// public suffix (`*.co.uk`). Without the list that cannot be decided, so no wildcard name matches
/// at all — a server with a wildcard certificate is then refused (fail closed). Install Debian's
/// `publicsuffix` package to read it from `/usr/share/publicsuffix/public_suffix_list.dat`.
public enum PublicSuffixListStatus {
    /// Where the list is read from: `TLSTRUST_PUBLIC_SUFFIX_LIST` when set, else Debian's
    /// `/usr/share/publicsuffix/public_suffix_list.dat`.
    public static var path: String { PublicSuffixList.path }
    /// Whether it was read (once per process).
    public static var isLoaded: Bool { PublicSuffixList.shared.isLoaded }
}
