import TLSTrust

/// How long test peers and test clients wait when the wait only bounds a failure.
///
/// CI runs every suite at once on two cores, on a machine that can be more than twice as slow as
/// a developer's. There a thread can stall for seconds, and a task that Swift's cooperative pool
/// resumes can wait over a minute (measured here: 64.6 s, while the suite's tests were still
/// being started). A deadline that a slow *success* can reach turns load into a failed test. So
/// every deadline that is not itself under test is this long: well past the longest stall seen,
/// and still far inside CI's limits when a test does hang. A test of a deadline (a silent peer is
/// `.timedOut`, a stalled fetch ends in time) passes its own, short one.
public enum TestDeadlines {
    /// The bound on a wait that ends early whenever things work: 90 s.
    public static let failureBound: Duration = .seconds(90)

    /// Connect, handshake and read deadlines of ``failureBound`` each.
    public static let tls = tls(read: failureBound)

    /// Connect and handshake deadlines of ``failureBound``, and `read` for reads: a short read
    /// deadline is how a test ends reading from a server that keeps the connection open after
    /// its answer.
    public static func tls(read: Duration) -> TLSTimeouts {
        TLSTimeouts(connect: failureBound, handshake: failureBound, read: read)
    }
}
