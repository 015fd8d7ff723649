/// SplitMix64: a tiny, fast, fully specified PRNG, so that a seed printed by one run regenerates
/// exactly the same case on any machine and any Swift version (the standard library's generator
/// is neither seedable nor specified).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }

    /// One element of a non-empty list.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &self)] }

    /// Up to `maximum` distinct elements of `choices`, in their order.
    mutating func some<T>(_ choices: [T], maximum: Int) -> [T] {
        let count = Int.random(in: 0...min(maximum, choices.count), using: &self)
        return Array(choices.shuffled(using: &self).prefix(count))
    }
}
