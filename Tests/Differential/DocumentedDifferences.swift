import TLSTrust

extension DocumentedDifference {
    /// Every documented difference, each described in docs/validation.md under the same name.
    static let all: [DocumentedDifference] = []
}
