import Foundation

/// Remembers the strings and tags a decode has made, keyed by their bytes in the journal.
///
/// Used for one block of a journal being read, where the same tags and artist names come back
/// on line after line: a value seen before is returned without being read, validated or
/// allocated again. A value type that the reader carries, so that its lookups, made for every
/// tag of every bookmark, need no exclusivity checks at run time.
struct DecodingCache {
    private var strings: [String] = []
    private var stringIndex = HashIndex()
    /// The tags, and the bytes each was read from (`tagBytes[tagRanges[i]]`).
    private var tags: [ArtworkTag] = []
    private var tagBytes: [UInt8] = []
    private var tagRanges: [Range<Int>] = []
    private var tagIndex = HashIndex()
    /// How many strings, and how many tags, it remembers at most.
    let capacity: Int

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
    }

    /// The string remembered for the UTF-8 bytes `utf8`, if any.
    func string(for utf8: UnsafeRawBufferPointer) -> String? {
        stringIndex.find(XXH64.hash(utf8)) { strings[$0].withUTF8Bytes { bytesEqual($0, utf8) } }.map { strings[$0] }
    }

    /// Remembers `string`, made from the bytes `utf8` (which ``string(for:)`` did not know).
    mutating func remember(_ string: String, for utf8: UnsafeRawBufferPointer) {
        guard strings.count < capacity else { return }
        stringIndex.insert(XXH64.hash(utf8))
        strings.append(string)
    }

    /// The tag remembered for `json` (its whole array, brackets included), if any.
    func tag(for json: UnsafeRawBufferPointer) -> ArtworkTag? {
        let known = tagIndex.find(XXH64.hash(json)) { position in
            tagBytes.withUnsafeBytes { bytesEqual(UnsafeRawBufferPointer(rebasing: $0[tagRanges[position]]), json) }
        }
        return known.map { tags[$0] }
    }

    /// Remembers `tag`, read from `json` (which ``tag(for:)`` did not know).
    mutating func remember(_ tag: ArtworkTag, for json: UnsafeRawBufferPointer) {
        guard tags.count < capacity else { return }
        tagIndex.insert(XXH64.hash(json))
        tagRanges.append(tagBytes.count..<(tagBytes.count + json.count))
        tagBytes.append(contentsOf: json)
        tags.append(tag)
    }
}
