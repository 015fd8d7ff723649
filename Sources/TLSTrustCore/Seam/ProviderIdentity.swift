/// Who a crypto provider is, as the provider itself states it: the key of its entries in
/// TLSTrust's caches (keys imported for a `Certificate`, anchor stores and verified chains kept by
/// `TrustAnchors`, revocation signature results).
///
/// Never a `name`: a name is only a label that any backend can claim, and a backend registered
/// under a name already taken (by mistake, or by a plug-in that wants another backend's results)
/// must not share imported keys, anchor stores or trusted evaluations with the real one. Never a
/// Swift type alone either: two instances of one wrapper type over different providers are two
/// providers, and must share nothing. Each identity can only be stated by the provider it names:
///
/// - ``init(type:)`` — a stateless provider whose every instance is the same provider (a backend
///   struct over a C library): all instances share one identity.
/// - ``init(instance:)`` — a provider that is one object: its identity lives as long as the
///   identity does (the object is kept), so a freed object's address is never reused for another.
/// - ``init(wrapping:in:)`` — a wrapper that adds something to another provider (counting,
///   logging, a fault): its own identity for each provider it wraps.
public struct ProviderIdentity: Hashable, Sendable, CustomStringConvertible {
    private let kind: Kind

    private indirect enum Kind: Hashable, Sendable {
        case type(ObjectIdentifier)
        case instance(Instance)
        case wrapped(ObjectIdentifier, Kind)
    }

    /// An object kept alive by the identity, compared by identity.
    private struct Instance: Hashable, @unchecked Sendable {  // `object` is Sendable; only its address is read
        let object: AnyObject
        static func == (a: Self, b: Self) -> Bool { a.object === b.object }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(object)) }
    }

    /// The identity of every instance of a stateless provider type.
    public init<Provider>(type: Provider.Type) {
        kind = .type(ObjectIdentifier(type))
    }

    /// The identity of one provider object.
    public init(instance: some AnyObject & Sendable) {
        kind = .instance(Instance(object: instance))
    }

    /// The identity of `Wrapper` around the provider whose identity is `inner`: different for each
    /// wrapped provider, and different from `inner` itself.
    public init<Wrapper>(wrapping inner: ProviderIdentity, in wrapper: Wrapper.Type) {
        kind = .wrapped(ObjectIdentifier(wrapper), inner.kind)
    }

    public var description: String {
        switch kind {
        case .type(let id): "ProviderIdentity(type: \(id))"
        case .instance(let instance): "ProviderIdentity(instance: \(ObjectIdentifier(instance.object)))"
        case .wrapped(let id, _): "ProviderIdentity(wrapper: \(id))"
        }
    }
}
