/// The anchors of a `TrustAnchors` value, indexed for path building: by normalized subject name
/// (RFC 5280 §7.1), and by DER for "is this certificate an anchor?".
///
/// Built once per anchor set and cached in ``TrustAnchors``, so that a handshake against the
/// system store (~150 anchors) costs one dictionary lookup per issuer, not a scan.
final class AnchorIndex: Sendable {
    let certificates: [Certificate]
    private let bySubject: [NormalizedName: [Certificate]]
    private let members: Set<Certificate>

    init(_ anchors: [Certificate]) {
        var seen = Set<Certificate>()
        var unique: [Certificate] = []
        for a in anchors where seen.insert(a).inserted { unique.append(a) }
        certificates = unique
        members = seen
        bySubject = Dictionary(grouping: unique, by: { $0.subject.normalized })
    }

    /// Whether `certificate` is one of the anchors, byte for byte.
    func contains(_ certificate: Certificate) -> Bool { members.contains(certificate) }

    /// The anchors whose subject matches `name`.
    func candidates(named name: NormalizedName) -> [Certificate] { bySubject[name] ?? [] }
}
