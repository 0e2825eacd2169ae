import BookmarkJSON

extension IndexCheckpoint {
    /// The checksum the checkpoint keeps for each section and for its header: XXH64 with seed 0.
    ///
    /// For tools outside the package that build checkpoints byte by byte (the fuzz target that
    /// patches checksums so that its inputs reach the checks behind them), which cannot see the
    /// package's JSON and hashing module.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        XXH64.hash(bytes)
    }
}
