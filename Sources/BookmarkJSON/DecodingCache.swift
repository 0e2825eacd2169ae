import Foundation

/// Remembers the strings, and the arrays of strings, a decode has made, keyed by their bytes in
/// the JSON.
///
/// Used for one block of a journal being read, where the same tags (arrays of a name and a
/// translation) and artist names come back on line after line: a value seen before is
/// returned without being read, validated or allocated again. A value type that the reader
/// carries, so that its lookups, made for every tag of every bookmark, need no exclusivity
/// checks at run time.
package struct DecodingCache {
    private var strings: [String] = []
    private var stringIndex = HashIndex()
    /// The arrays, each the run `arrayElements[arrayRuns[i]]`, and the bytes each was read from
    /// (`arrayBytes[arrayRanges[i]]`).
    private var arrayElements: [String] = []
    private var arrayRuns: [Range<Int>] = []
    private var arrayBytes: [UInt8] = []
    private var arrayRanges: [Range<Int>] = []
    private var arrayIndex = HashIndex()
    /// How many strings, and how many arrays, it remembers at most.
    package let capacity: Int

    package init(capacity: Int = 1 << 16) {
        self.capacity = capacity
    }

    /// The string remembered for the UTF-8 bytes `utf8`, if any.
    package func string(for utf8: UnsafeRawBufferPointer) -> String? {
        stringIndex.find(XXH64.hash(utf8)) { strings[$0].withUTF8Bytes { bytesEqual($0, utf8) } }.map { strings[$0] }
    }

    /// Remembers `string`, made from the bytes `utf8` (which ``string(for:)`` did not know).
    package mutating func remember(_ string: String, for utf8: UnsafeRawBufferPointer) {
        guard strings.count < capacity else { return }
        stringIndex.insert(XXH64.hash(utf8))
        strings.append(string)
    }

    /// The strings remembered for `json` (a whole array, brackets included), if any.
    package func strings(forArray json: UnsafeRawBufferPointer) -> ArraySlice<String>? {
        let known = arrayIndex.find(XXH64.hash(json)) { position in
            arrayBytes.withUnsafeBytes { bytesEqual(UnsafeRawBufferPointer(rebasing: $0[arrayRanges[position]]), json) }
        }
        return known.map { arrayElements[arrayRuns[$0]] }
    }

    /// Remembers `elements`, read from the array `json` (which ``strings(forArray:)`` did not know).
    package mutating func remember(_ elements: some Collection<String>, forArray json: UnsafeRawBufferPointer) {
        guard arrayRanges.count < capacity else { return }
        arrayIndex.insert(XXH64.hash(json))
        arrayRanges.append(arrayBytes.count..<(arrayBytes.count + json.count))
        arrayBytes.append(contentsOf: json)
        arrayRuns.append(arrayElements.count..<(arrayElements.count + elements.count))
        arrayElements.append(contentsOf: elements)
    }
}
