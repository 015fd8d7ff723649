import ArgumentParser
import TLSTrust
@_spi(Comparison) import TLSTrustCore

/// Which verifier answers `evaluate`, `compare`, `bench` and `conformance`: TLSTrust's engine,
/// which decides, or the library's own verifier, asked through the comparison API for comparison.
package enum TrustEngine: String, Sendable, Hashable, CaseIterable, CustomStringConvertible, ExpressibleByArgument {
    case core
    case native

    package var description: String { rawValue }
}

extension Trust {
    /// This trust's evaluation by `engine` on `backend`: ``Trust/evaluate(using:)`` for the engine,
    /// the comparison API for the library's own verifier.
    package func evaluation(by engine: TrustEngine, using backend: any TrustBackend) -> TrustEvaluation {
        switch engine {
        case .core: evaluate(using: backend)
        case .native: evaluateNatively(using: backend)
        }
    }
}
