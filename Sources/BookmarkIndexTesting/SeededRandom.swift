import BookmarkIndex

/// A small, fast, seedable random number generator (SplitMix64), so generated data and
/// randomized tests are the same on every run and every platform.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    public mutating func next() -> UInt64 {
        generator.next()
    }
}
