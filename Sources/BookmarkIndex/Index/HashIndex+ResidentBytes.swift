import BookmarkJSON

extension HashIndex {
    /// The heap bytes of the table's buffers. O(1).
    var residentBytes: Int { ResidentBytes.of(slots) + ResidentBytes.of(hashes) }
}
