import Foundation

/// Fetching the issuers a server left out, from the authorityInfoAccess caIssuers URL of the
/// certificate where path building stopped (RFC 5280 §4.2.2.1) — what Apple, Chrome and Android
/// do for a server that sends only its leaf.
///
/// The engine asks only when no path reached an anchor with what it has, and only when the app
/// allows the network (``RevocationInputs/fetcher`` is set only then: `--allow-fetch`,
/// `SecTrustSetNetworkFetchAllowed`, ``RevocationPolicy/allowsNetworkFetch``). Every request is
/// paid from the evaluation's one ``RevocationFetchBudget`` (count and time, shared with
/// revocation fetches) and bounded in size by the fetcher; only `http://` URLs are asked (the
/// fetcher refuses every other scheme), each URL once per evaluation, so an answer whose own
/// caIssuers points back ends. What comes back is a candidate, never an anchor: it joins the
/// untrusted intermediates and must validate like any of them.
///
/// Answers are cached by URL (``IssuerCertificateCache``) and reused only by evaluations that
/// may fetch: an evaluation without the permission never rests on anything fetched.
struct MissingIssuerFetch {
    let fetcher: any RevocationFetching
    let budget: RevocationFetchBudget
    let date: Date
    /// The caIssuers URLs already asked in this evaluation.
    private(set) var asked: Set<String> = []
    /// Everything fetched, in order, without repeats.
    private(set) var certificates: [Certificate] = []
    /// Why fetches brought nothing usable, for the evaluation's report.
    private(set) var notes: [String] = []

    init(fetcher: any RevocationFetching, budget: RevocationFetchBudget, date: Date) {
        self.fetcher = fetcher
        self.budget = budget
        self.date = date
    }

    /// Fetches the issuers `certificate` names that were not asked yet; true when something new
    /// came back (worth building again).
    mutating func fetchIssuers(of certificate: Certificate) -> Bool {
        let urls = certificate.revocationPointers.caIssuers.filter { !asked.contains($0) }
        if urls.isEmpty { return false }
        var found = false
        for url in urls {
            asked.insert(url)
            let fetched: [Certificate]
            if let cached = IssuerCertificateCache.shared.certificates(from: url, at: date) {
                fetched = cached
            } else {
                guard let deadline = budget.take() else {
                    notes.append("caIssuers \(url) not fetched: the fetch budget is spent (\(RevocationFetchBudget.maximumFetches) fetches, \(RevocationFetchBudget.totalTime))")
                    return found
                }
                do {
                    fetched = try IssuerCertificates.parse(try fetcher.fetchIssuerCertificates(from: url, deadline: deadline))
                } catch let error as TLSTrustError {
                    notes.append("caIssuers fetch from \(url) failed: \(error.message)")
                    continue
                } catch {
                    notes.append("caIssuers fetch from \(url) failed: \(error)")
                    continue
                }
                IssuerCertificateCache.shared.insert(fetched, from: url)
            }
            let new = fetched.filter { !certificates.contains($0) }
            certificates += new
            found = found || !new.isEmpty
        }
        return found
    }
}

/// Certificates fetched from caIssuers URLs, by URL, kept for an hour (or until the first of them
/// expires) so that a server that sends only its leaf costs one fetch, not one per connection.
/// Bounded; the entry due first goes first.
final class IssuerCertificateCache: Sendable {
    static let shared = IssuerCertificateCache()
    static let capacity = 256
    static let lifetime: TimeInterval = 3600

    private let entries = Locked<[String: (certificates: [Certificate], until: Date)]>([:])

    func insert(_ certificates: [Certificate], from url: String) {
        let until = min(Date().addingTimeInterval(Self.lifetime), certificates.map(\.notValidAfter).min() ?? .distantPast)
        entries.withLock { table in
            if table[url] == nil, table.count >= Self.capacity, let victim = table.min(by: { $0.value.until < $1.value.until })?.key {
                table[victim] = nil
            }
            table[url] = (certificates, until)
        }
    }

    /// What `url` served, while still kept at `date` (and `date` is not past the entry's end).
    func certificates(from url: String, at date: Date) -> [Certificate]? {
        entries.withLock { table in
            guard let entry = table[url], Date() <= entry.until, date <= entry.until else { return nil }
            return entry.certificates
        }
    }

    /// Forgets every fetched issuer (tests, and apps that want to re-ask).
    func removeAll() {
        entries.withLock { $0 = [:] }
    }
}
