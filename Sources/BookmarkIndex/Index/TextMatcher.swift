/// A filter's text, matched case-insensitively inside a row's title or artist name by the
/// library's own case folding: Unicode's lowercase mapping of each scalar, the same that
/// `String.lowercased()` applies and that tags are matched by.
///
/// It compares UTF-8 bytes of the folded texts, so it never traps, on any pair of strings
/// (Foundation's `range(of:options: .caseInsensitive)` traps on Linux when the text ends in
/// U+0000 and the match ends a non-ASCII title). Text is matched by scalars, not by characters:
/// `"e"` is found in a decomposed `"é"` (an `e` and a combining accent), as a byte search finds
/// it. A row's text is searched where it is; only one holding a non-ASCII scalar that folding
/// changes is folded into a scratch buffer first, and a scalar that has no case (kana, CJK
/// ideographs, Hangul) is never looked up.
///
/// A reference type only for its scratch buffer, reused row after row: one query's plan holds
/// one, on one thread.
final class TextMatcher {
    /// The folded text searched for; never empty.
    let needle: [UInt8]
    /// Whether the needle is ASCII: then only the few scalars that fold to ASCII
    /// (``scalarsFoldingToASCII``) can make a match the search of the unfolded text misses.
    private let needleIsASCII: Bool
    private var scratch: [UInt8] = []

    /// The non-ASCII scalars whose lowercase mapping holds ASCII: `İ` (to `i` and a combining
    /// dot) and the Kelvin sign (to `k`). The test suite checks every scalar.
    static let scalarsFoldingToASCII: [Unicode.Scalar] = ["\u{130}", "\u{212A}"]

    /// A matcher of `text`, or `nil` for an empty text (which every row matches).
    init?(_ text: String) {
        var folded: [UInt8] = []
        var text = text
        text.withUTF8 { Self.fold($0, into: &folded) }
        guard !folded.isEmpty else { return nil }
        needle = folded
        needleIsASCII = folded.allSatisfy { $0 < 0x80 }
    }

    /// Whether the folded `text` contains the needle.
    ///
    /// First a search of the text as it is, folding only ASCII letters on the way: what it finds
    /// is a match, since folding is idempotent (a scalar of the folded needle folds to itself;
    /// the test suite checks every scalar). Only a text holding a non-ASCII scalar that folding
    /// changes (an `É`, a full-width `Ａ`) can match otherwise: that one is folded whole and
    /// searched again.
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if Self.containsASCIIFolded(text, needle) { return true }
        let mayMatchFolded = needleIsASCII ? Self.hasScalarFoldingToASCII(text) : Self.hasNonASCIIScalarThatFolds(text)
        guard mayMatchFolded else { return false }
        scratch.removeAll(keepingCapacity: true)
        Self.fold(text, into: &scratch)
        // Folded text has no upper-case ASCII letter left: the same search serves.
        return scratch.withUnsafeBufferPointer { Self.containsASCIIFolded($0, needle) }
    }

    /// Whether `text` holds one of ``scalarsFoldingToASCII`` (UTF-8 `C4 B0` or `E2 84 AA`).
    private static func hasScalarFoldingToASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var position = 0
        while position + 1 < text.count {
            switch text[position] {
            case 0xC4 where text[position + 1] == 0xB0: return true
            case 0xE2 where text[position + 1] == 0x84 && position + 2 < text.count && text[position + 2] == 0xAA: return true
            default: position += 1
            }
        }
        return false
    }

    /// Whether valid UTF-8 `text` holds a non-ASCII scalar whose lowercase mapping differs.
    private static func hasNonASCIIScalarThatFolds(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var position = 0
        while position < text.count {
            let lead = text[position]
            if lead < 0x80 {
                position += 1
                continue
            }
            let end = sequenceEnd(from: position, in: text)
            if scalarThatFolds(UnsafeBufferPointer(rebasing: text[position..<end])) != nil { return true }
            position = end
        }
        return false
    }

    // MARK: Folding

    /// Appends the lowercase mapping of valid UTF-8 `text`, scalar by scalar.
    static func fold(_ text: UnsafeBufferPointer<UInt8>, into folded: inout [UInt8]) {
        folded.reserveCapacity(folded.count + text.count)
        var position = 0
        while position < text.count {
            let lead = text[position]
            if lead < 0x80 {
                folded.append(asciiLowercase(lead))
                position += 1
                continue
            }
            let end = sequenceEnd(from: position, in: text)
            let bytes = UnsafeBufferPointer(rebasing: text[position..<end])
            if let scalar = scalarThatFolds(bytes) {
                folded.append(contentsOf: scalar.properties.lowercaseMapping.utf8)
            } else {
                folded.append(contentsOf: bytes)
            }
            position = end
        }
    }

    /// Where the UTF-8 sequence whose lead byte is at `position` ends (cut at the text's end).
    private static func sequenceEnd(from position: Int, in text: UnsafeBufferPointer<UInt8>) -> Int {
        let lead = text[position]
        return min(position + (lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2), text.count)
    }

    /// The scalar of the non-ASCII sequence `bytes` when folding changes it; `nil` otherwise.
    private static func scalarThatFolds(_ bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard let scalar = decodeScalar(bytes), !hasNoCase(scalar), scalar.properties.changesWhenLowercased else { return nil }
        return scalar
    }

    /// Whether `scalar` lies in a block whose scalars have no lowercase mapping (kana, CJK
    /// ideographs and their symbols, Hangul syllables): most of Pixiv's titles, copied as they
    /// are. The test suite checks every scalar of these ranges.
    static func hasNoCase(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (0x3000..<0xA000).contains(value) || (0xAC00..<0xD7A4).contains(value)
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    /// The scalar of one UTF-8 sequence; `nil` when it is not one (never for a row's text,
    /// which was a Swift string).
    private static func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return nil
    }

    // MARK: Searching

    /// Whether `text`, its ASCII letters folded byte by byte, contains `needle`.
    private static func containsASCIIFolded(_ text: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        let count = needle.count
        guard text.count >= count else { return false }
        return needle.withUnsafeBufferPointer { needle in
            let first = needle[0]
            // A first byte that is no letter is found unfolded (an upper-case letter folds to a letter).
            let firstIsLetter = first &- UInt8(ascii: "a") < 26
            var start = 0
            let last = text.count - count
            while start <= last {
                let byte = text[start]
                if byte == first || (firstIsLetter && byte | 0x20 == first) {
                    var offset = 1
                    while offset < count && asciiLowercase(text[start + offset]) == needle[offset] { offset += 1 }
                    if offset == count { return true }
                }
                start += 1
            }
            return false
        }
    }
}
