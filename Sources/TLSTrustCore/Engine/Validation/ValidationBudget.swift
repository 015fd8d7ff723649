/// The work one evaluation may do, so that hostile input is bounded by a budget, never by luck.
///
/// The limits follow rustls-webpki (100 signature checks, 200,000 path-building steps) and bound
/// name-constraint comparisons the same way. Exhausting any of them ends the evaluation with
/// ``TrustFailureCode/budgetExhausted``: never a hang, never trust.
public struct ValidationBudget: Sendable, Hashable {
    /// Signature verifications (the expensive part: each is a public-key operation).
    public var signatureChecks: Int
    /// Issuer candidates considered while building paths.
    public var pathBuildingSteps: Int
    /// Name × subtree comparisons while checking name constraints.
    public var nameConstraintComparisons: Int
    /// The longest path considered, in certificates (leaf and anchor included).
    public var maximumPathLength: Int
    /// Certificate-policy graph operations (RFC 9618): parent links considered, expected policies
    /// expanded, mappings applied and nodes pruned, over every candidate path (`PolicyGraph`).
    public var policyGraphOperations: Int

    public init(signatureChecks: Int = 100, pathBuildingSteps: Int = 200_000,
                nameConstraintComparisons: Int = 250_000, maximumPathLength: Int = 16,
                policyGraphOperations: Int = 100_000) {
        self.signatureChecks = signatureChecks
        self.pathBuildingSteps = pathBuildingSteps
        self.nameConstraintComparisons = nameConstraintComparisons
        self.maximumPathLength = maximumPathLength
        self.policyGraphOperations = policyGraphOperations
    }

    /// The default budget.
    public static let standard = ValidationBudget()
}

/// The budget being spent by one evaluation.
struct BudgetMeter {
    enum Exhausted: Error { case signatures, steps, nameConstraints, policyGraph }

    private(set) var remaining: ValidationBudget
    init(_ budget: ValidationBudget) { remaining = budget }

    mutating func spendSignature() throws {
        guard remaining.signatureChecks > 0 else { throw Exhausted.signatures }
        remaining.signatureChecks -= 1
    }

    mutating func spendStep() throws {
        guard remaining.pathBuildingSteps > 0 else { throw Exhausted.steps }
        remaining.pathBuildingSteps -= 1
    }

    mutating func spendComparisons(_ n: Int) throws {
        guard remaining.nameConstraintComparisons >= n else { throw Exhausted.nameConstraints }
        remaining.nameConstraintComparisons -= n
    }

    mutating func spendPolicyOperations(_ n: Int) throws {
        guard remaining.policyGraphOperations >= n else { throw Exhausted.policyGraph }
        remaining.policyGraphOperations -= n
    }
}

extension BudgetMeter.Exhausted: CustomStringConvertible {
    var description: String {
        switch self {
        case .signatures: return "validation budget exhausted: too many signature checks (hostile or absurd chain)"
        case .steps: return "validation budget exhausted: too many path-building steps (hostile or absurd chain)"
        case .nameConstraints: return "validation budget exhausted: too many name-constraint comparisons (hostile or absurd names)"
        case .policyGraph: return "validation budget exhausted: too many certificate-policy graph operations (hostile or absurd policies)"
        }
    }
}
