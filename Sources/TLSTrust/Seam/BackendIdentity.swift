/// Which backend an imported key, a prepared anchor store or a verified chain belongs to.
///
/// Caches are keyed by the backend's *type*, never by its `name`: a name is only a label that
/// any type can claim, and a backend registered under a name already taken (by mistake, or by a
/// plug-in that wants another backend's results) must not share imported keys, anchor stores or
/// trusted evaluations with the real one. Two instances of one backend type share these caches:
/// a backend type is one crypto provider, whatever instance is at hand.
struct BackendIdentity: Hashable, Sendable {
    private let type: ObjectIdentifier

    fileprivate init(type: ObjectIdentifier) {
        self.type = type
    }
}

extension TrustBackend {
    /// The key of this backend's entries in TLSTrust's caches (``BackendIdentity``).
    var identity: BackendIdentity { BackendIdentity(type: ObjectIdentifier(Self.self)) }
}
