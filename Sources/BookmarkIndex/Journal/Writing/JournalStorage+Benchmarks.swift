import BookmarkJSON

extension JournalStorage {
    /// Makes each of `batches` into its line as a loop of ``append(_:)`` does, one call each
    /// (numbered from 1, as in a new journal), without a file; returns how many bytes the
    /// lines take.
    ///
    /// For the benchmarks, which time it beside durable appends and the fsync floor: the floor
    /// and this encoding are what an append cannot do without; the rest of its time is the
    /// hand-overs between threads (from a caller off the storage's pool), the checks, the lane
    /// and the lock. Here rather than in a testing module because it needs the journal's
    /// internal writer.
    @_spi(Benchmarks) public static func encodeEachBatch(_ batches: [[BookmarkChange]]) -> Int {
        var bytes = 0
        for (index, changes) in batches.enumerated() {
            bytes += JournalWriter.lines(of: CollectionOfOne(changes), from: index + 1).count
        }
        return bytes
    }
}
