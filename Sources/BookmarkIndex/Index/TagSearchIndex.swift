import Foundation

/// Every tag name and translation of a ``TagTable``, case-folded and back to back in one byte
/// arena: what finds the tags whose name or translation contains what a user is typing, by one
/// pass over a few hundred kilobytes at most, never over the bookmarks.
///
/// Texts are folded as the tag filter folds them (`String.lowercased()`), so a tag that a
/// search finds by a word is one a filter of that word would match. Maintained as the table
/// interns (it only grows, like the table), so reading it never builds anything.
struct TagSearchIndex: Sendable {
    /// Whom an entry's text belongs to.
    enum Owner: Equatable {
        /// The name of the tag.
        case name(TagID)
        /// The translation of the (name, translation) pair.
        case translation(TagRefID)
    }

    /// The folded texts, back to back.
    private var bytes: [UInt8] = []
    /// Where each entry's text ends in ``bytes``; it begins where the previous one ends.
    private var ends: [Int32] = []
    /// Each entry's owner: a ``TagID``, or a ``TagRefID`` with ``translationBit`` set.
    private var owners: [UInt32] = []

    private static let translationBit: UInt32 = 1 << 31

    /// The heap bytes of the arena and its tables, room to grow included. O(1).
    var residentBytes: Int { ResidentBytes.of(bytes) + ResidentBytes.of(ends) + ResidentBytes.of(owners) }

    /// Adds the folded name of `tag`.
    mutating func add(name tag: TagID, folded: String) {
        append(folded, owner: UInt32(tag))
    }

    /// Adds the folded translation of the pair `ref`.
    mutating func add(translationOf ref: TagRefID, folded: String) {
        append(folded, owner: ref | Self.translationBit)
    }

    private mutating func append(_ folded: String, owner: UInt32) {
        bytes.append(contentsOf: folded.utf8)
        ends.append(Int32(bytes.count))
        owners.append(owner)
    }

    /// Calls `body` with the owner of each entry whose text contains `needle` (folded UTF-8),
    /// and whether the text begins with it. O(B) for B bytes of text, plus a comparison at each
    /// place the needle's first byte occurs.
    ///
    /// A byte search finds whole scalars only: in UTF-8 no scalar's bytes begin inside another's.
    func forEachMatch(of needle: [UInt8], _ body: (Owner, _ isPrefix: Bool) -> Void) {
        bytes.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { needle in
                var start = 0
                for entry in ends.indices {
                    let end = Int(ends[entry])
                    defer { start = end }
                    guard let position = Self.firstOccurrence(of: needle, in: bytes, from: start, to: end) else { continue }
                    let owner = owners[entry]
                    body(owner & Self.translationBit != 0 ? .translation(owner & ~Self.translationBit) : .name(TagID(owner)), position == start)
                }
            }
        }
    }

    /// Where `needle` first occurs in `bytes[start..<end]`, or `nil`.
    private static func firstOccurrence(
        of needle: UnsafeBufferPointer<UInt8>,
        in bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int
    ) -> Int? {
        let count = needle.count
        guard count > 0 else { return start }
        guard end - start >= count else { return nil }
        let first = needle[0]
        var position = start
        let last = end - count
        while position <= last {
            if bytes[position] == first
                && (count == 1 || memcmp(bytes.baseAddress! + position + 1, needle.baseAddress! + 1, count - 1) == 0) {
                return position
            }
            position += 1
        }
        return nil
    }
}
