import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// Path building (RFC 4158): backtracking past dead ends, intermediates in any order, cycles
/// that end, and a work budget that hostile input runs out of — as a verdict, never a hang.
///
/// Budget tests assert the failure code, never a duration.
@Suite("Engine: path building and budget")
struct EnginePathBuildingTests {
    static func trust(_ shape: PathShape, intermediates: [TestCertificate]? = nil) -> Trust {
        engineTrust([shape.leaf] + (intermediates ?? shape.intermediates), anchors: shape.anchors, host: shape.hostname)
    }

    // MARK: Backtracking

    @Test("a dead-end cross-certificate offered first is backtracked from", arguments: PathShape.DeadEnd.allCases)
    func deadEndCrossCertificateFirst(_ deadEnd: PathShape.DeadEnd) throws {
        let shape = try PathShape.deadEndCrossCertificateFirst(deadEnd)
        expectEngine(Self.trust(shape), .trusted)
        // And in the other order, the easy one.
        expectEngine(Self.trust(shape, intermediates: shape.intermediates.reversed()), .trusted)
    }

    @Test func sameNamedImpostorsBeforeTheRealIssuerAreBacktrackedFrom() throws {
        let shape = try PathShape.sameNamedIntermediates(count: 4)  // the real issuer last
        expectEngine(Self.trust(shape), .trusted)
    }

    @Test func sameNamedCandidatesWithoutTheRealIssuerAreNotTrusted() throws {
        let shape = try PathShape.sameNamedIntermediates(count: 4, realIssuerIndex: nil)
        expectEngine(Self.trust(shape), .refused(.badSignature))
    }

    @Test func intermediatesAreFoundInEveryOrder() throws {
        let chain = try TestScenario.longChain(intermediates: 4)
        let leaf = chain.chain[0]
        let intermediates = Array(chain.chain.dropFirst())
        var count = 0
        for order in permutations(intermediates) {
            expectEngine(engineTrust([leaf] + order, anchors: chain.anchors, host: "www.example.com"), .trusted)
            count += 1
        }
        #expect(count == 24)
    }

    @Test func duplicatedAndUnrelatedIntermediatesDoNotDerailPathBuilding() throws {
        let pki = try TestHierarchy.make()
        let stranger = try TestHierarchy.make()
        expectEngine(engineTrust([pki.leaf, stranger.intermediate, pki.intermediate, pki.intermediate, stranger.leaf],
                                 anchors: pki.anchors, host: "www.example.com"), .trusted)
    }

    // MARK: Cycles

    @Test("a cycle of issuers terminates, not trusted", arguments: [1, 2, 3])
    func cycleTerminates(length: Int) throws {
        let shape = try PathShape.cycle(length: length)
        expectEngineRefuses(Self.trust(shape))
        // The ring presented in reverse and twice over changes nothing.
        expectEngineRefuses(Self.trust(shape, intermediates: shape.intermediates.reversed() + shape.intermediates))
    }

    @Test func aCycleBesideTheValidPathDoesNotHideIt() throws {
        let pki = try TestHierarchy.make()
        let ring = try PathShape.cycle(length: 2)
        // A cross-certificate makes the ring a second issuer of the real intermediate's key.
        let cross = try TestPKI.issue(TestHierarchy.intermediateProfile(), subjectKey: pki.intermediate.privateKey,
                                      issuer: ring.intermediates[0])
        expectEngine(engineTrust([pki.leaf, cross] + ring.intermediates + [pki.intermediate], anchors: pki.anchors,
                                 host: "www.example.com"), .trusted)
    }

    // MARK: Budget

    @Test func aHundredAndFiftySameNamedIntermediatesExhaustTheBudget() throws {
        let shape = try PathShape.sameNamedIntermediates(count: 150)  // real issuer last
        expectEngine(Self.trust(shape), .refused(.budgetExhausted))
    }

    @Test func aThousandSANsUnderAThousandSubtreesExhaustTheBudget() throws {
        let pki = try constrainedNamesChain(names: 1000, excludedSubtrees: 999)
        #expect(pki.chain[0].certificate.dnsNames.count == 1000)
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.budgetExhausted))
    }

    @Test func theSameShapesWellWithinTheBudgetAreTrusted() throws {
        // The controls: budget tests must fail for their size, not for their shape.
        let pki = try constrainedNamesChain(names: 20, excludedSubtrees: 19)
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .trusted)
        expectEngine(Self.trust(try PathShape.sameNamedIntermediates(count: 20)), .trusted)
    }
}

/// All orderings of `elements` (Heap's algorithm); for the handful of intermediates a test permutes.
func permutations<T>(_ elements: [T]) -> [[T]] {
    var result: [[T]] = []
    var a = elements
    func generate(_ k: Int) {
        if k <= 1 { result.append(a); return }
        generate(k - 1)
        for i in 0..<(k - 1) {
            a.swapAt(k % 2 == 0 ? i : 0, k - 1)
            generate(k - 1)
        }
    }
    generate(a.count)
    return result
}
