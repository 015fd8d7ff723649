/// The process-wide registry of backends and the default one.
///
/// Follows swift-log's `LoggingSystem`: an application chooses its backend once at start-up with
/// ``bootstrap(_:)``, while libraries never need to — every entry point also takes an explicit
/// backend. Backend modules cannot register themselves (Swift has no load-time initialisers), so
/// the application registers the ones it links:
///
/// ```swift
/// import TLSTrustOpenSSL
/// TrustBackends.bootstrap(OpenSSLTrustBackend())
/// ```
public enum TrustBackends {
    private struct State {
        var registered: [String: any TrustBackend] = [:]
        var order: [String] = []
        var defaultBackend: (any TrustBackend)?
    }

    private static let state = Locked(State())

    /// Adds `backend` under its ``TrustBackend/name``, replacing one of the same name.
    public static func register(_ backend: any TrustBackend) {
        state.withLock { s in
            if s.registered[backend.name] == nil { s.order.append(backend.name) }
            s.registered[backend.name] = backend
        }
    }

    /// Makes `backend` the process default (and registers it). Only the first call takes effect, so
    /// a library cannot silently swap the backend an application chose.
    ///
    /// - Returns: false when a default had already been chosen and this call was ignored.
    @discardableResult
    public static func bootstrap(_ backend: any TrustBackend) -> Bool {
        register(backend)
        return state.withLock { s in
            guard s.defaultBackend == nil else { return false }
            s.defaultBackend = backend
            return true
        }
    }

    /// The bootstrapped default, or nil.
    public static var defaultBackend: (any TrustBackend)? { state.withLock { $0.defaultBackend } }

    /// Every registered backend, in registration order.
    public static var all: [any TrustBackend] {
        state.withLock { s in s.order.compactMap { s.registered[$0] } }
    }

    /// The registered names, in registration order.
    public static var names: [String] { state.withLock { $0.order } }

    /// The backend registered as `name` (case-insensitive).
    ///
    /// - Throws: `TLSTrustError` `.unknownBackend`, naming the registered ones.
    public static func named(_ name: String) throws -> any TrustBackend {
        try state.withLock { s in
            if let b = s.registered[name.lowercased()] { return b }
            let known = s.order.isEmpty ? "none are registered" : "registered: \(s.order.joined(separator: ", "))"
            throw TLSTrustError(.unknownBackend, "unknown backend '\(name)' (\(known))")
        }
    }
}
