import TLSTrust

/// How long test peers and test clients wait when the wait only bounds a failure.
///
/// CI runs every suite at once on two cores, on a machine that can be more than twice as slow as
/// a developer's, and a thread there can stall for seconds. A deadline that a slow *success* can
/// reach turns load into a failed test: two CI runs failed so, on a 5 s handshake deadline of a
/// test peer. So every deadline that is not itself under test is this long. A test of a deadline
/// (a silent peer is `.timedOut`, a stalled fetch ends in time) passes its own, short one.
public enum TestDeadlines {
    /// The bound on a wait that ends early whenever things work: 30 s.
    public static let failureBound: Duration = .seconds(30)

    /// Connect, handshake and read deadlines of ``failureBound`` each.
    public static let tls = TLSTimeouts(connect: failureBound, handshake: failureBound, read: failureBound)
}
