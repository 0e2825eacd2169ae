extension JournalStorage {
    /// Makes each of `batches` into its line as a loop of ``append(_:)`` does, one call each
    /// (numbered from 1), without a file; returns the lines' bytes.
    ///
    /// For the benchmarks, which time it beside a durable append and the fsync floor: an append
    /// costs the floor, this encoding, and the hand-overs between threads.
    @_spi(Benchmarks) public static func encodeEachBatch(_ batches: [[BookmarkChange]]) -> Int {
        var bytes = 0
        for (index, changes) in batches.enumerated() {
            bytes += JournalWriter.lines(of: CollectionOfOne(changes), from: index + 1).count
        }
        return bytes
    }
}
