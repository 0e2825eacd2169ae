// An estimate of the memory an index keeps, from the sizes of its buffers: O(1) per buffer,
// never a walk over the rows. See `BookmarksIndexStore.residentBytes` for the method.

/// The heap bytes of buffers, as the standard library lays them out (on 64-bit platforms).
enum ResidentBytes {
    /// A heap object's header (isa, reference counts) and the malloc rounding around it, about.
    static let objectHeader = 32

    /// An array's buffer: its capacity (what it holds and room it grew into) times the
    /// element's stride, and a header. An empty array allocates nothing.
    static func of<Element>(_ array: [Element]) -> Int {
        array.capacity == 0 ? 0 : objectHeader + array.capacity * MemoryLayout<Element>.stride
    }

    /// A dictionary's buffer: the buckets (its capacity is at most three quarters of them),
    /// each a key and a value, a bit of occupancy each, and a header. Not the keys' and
    /// values' own heap storage (a `String`'s), which the caller counts if it matters.
    static func of<Key, Value>(_ dictionary: [Key: Value]) -> Int {
        guard dictionary.capacity > 0 else { return 0 }
        let buckets = dictionary.capacity * 4 / 3 + 1
        return objectHeader + buckets * (MemoryLayout<Key>.stride + MemoryLayout<Value>.stride) + buckets / 8
    }

    /// A string's heap storage: none up to 15 UTF-8 bytes (stored inline), else its bytes, a
    /// terminating NUL and a header.
    static func of(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : objectHeader + count + 1
    }
}

extension BookmarkIndexState {
    /// An estimate of the heap bytes this state keeps: its two lists, its tag table and the
    /// lists' text indexes once built. O(1): see ``BookmarksIndexStore/residentBytes``.
    var residentBytes: Int {
        let metadata = metadataByList.reduce(ResidentBytes.of(metadataByList)) { total, metadata in
            total + (metadata.syncState.map { ResidentBytes.objectHeader + $0.json.count } ?? 0)
        }
        return lists.reduce(tags.residentBytes + ResidentBytes.of(lists) + metadata) { $0 + $1.residentBytes }
    }
}

extension ListIndex {
    /// An estimate of the heap bytes this list keeps: its rows (fixed-size records, by slot,
    /// free ones included), the illust → slot table, the text and tag arenas (garbage included
    /// until packed), the tag counts and postings, the order list, and the text index if a
    /// query built it. O(1).
    var residentBytes: Int {
        // Postings: each live tag of a row is one posting (a name carried twice by one row, with
        // two translations, counts once: rare), and each tag with postings has a buffer.
        let postingsBytes = ResidentBytes.of(postings)
            + (tagRefs.count - garbageTags) * MemoryLayout<Int32>.stride
            + postings.count * ResidentBytes.objectHeader
        return ResidentBytes.of(slots) + ResidentBytes.of(freeSlots) + ResidentBytes.of(slotByIllust.buckets)
            + ResidentBytes.of(text) + ResidentBytes.of(tagRefs)
            + ResidentBytes.of(tagCounts) + ResidentBytes.of(vanishedTagCounts) + ResidentBytes.of(vanishedSlots.slots)
            + postingsBytes + ResidentBytes.of(refCounts)
            + order.residentBytes + textSearch.residentBytes + columns.residentBytes + leaders.residentBytes
    }
}
