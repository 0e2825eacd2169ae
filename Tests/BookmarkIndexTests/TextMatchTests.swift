@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// A filter's text is matched by the library's own case folding (issue 26): no input traps, as
/// Foundation's `range(of:options: .caseInsensitive)` did on Linux for a text ending in U+0000.
@Suite("Text matching")
struct TextMatchTests {
    /// One public row per `(title, artist)`, illust IDs from 1, newest (highest ID) first.
    static func state(_ rows: [(title: String, artist: String)]) -> BookmarkIndexState {
        var state = BookmarkIndexState()
        state.apply(rows.enumerated().map { index, texts in
            .upsert(row(index + 1, order: Int64(index + 1), title: texts.title, artist: texts.artist))
        })
        return state
    }

    func ids(_ text: String, in state: BookmarkIndexState) -> [Int] {
        state.bookmarks(in: .public, matching: BookmarkFilter(text: text)).ids
    }

    // MARK: Texts ending in U+0000

    /// The inputs that trapped (or, for ASCII, matched past the end) before: a text ending in NUL
    /// never matches a title without one, and never traps. (The arguments are the texts without
    /// their NUL, which the test appends, so that the test's output stays printable.)
    @Test(arguments: [
        ("タイトル", "ル"),
        ("タイトル", "タイトル"),
        ("é", "é"),
        ("É", "é"),
        ("a", "a"),
        ("A", "a"),
        ("Girl in blue", "blue"),
        ("夏の空 🌸", "🌸"),
        ("", ""),
    ])
    func aTextEndingInNULDoesNotMatchATitleWithout(title: String, textBeforeNUL: String) {
        let state = Self.state([(title, "")])
        let text = textBeforeNUL + "\u{0}"
        #expect(ids(text, in: state) == [], "\(title.debugDescription) / \(text.debugDescription)")
        #expect(state.count(in: .public, matching: BookmarkFilter(text: text)) == 0)
        // The artist name is searched the same way.
        #expect(ids(text, in: Self.state([("", title)])) == [])
        // The same text without its NUL is found.
        if !textBeforeNUL.isEmpty {
            #expect(ids(textBeforeNUL, in: state) == [1], "\(title.debugDescription) / \(textBeforeNUL.debugDescription)")
        }
    }

    @Test func aTitleOrArtistNameEndingInNULIsFoundByATextEndingInNUL() {
        let state = Self.state([("タイトル\u{0}", ""), ("plain", "é\u{0}"), ("タイトル", "é")])
        #expect(ids("ル\u{0}", in: state) == [1])
        #expect(ids("É\u{0}", in: state) == [2])
        #expect(ids("\u{0}", in: state) == [2, 1])
        #expect(ids("タイ", in: state) == [3, 1])
    }

    @Test func japaneseTitlesMatchByTheirParts() {
        let state = Self.state([("タイトル", "作者"), ("夏の空", "みどり"), ("空色タイル", "")])
        #expect(ids("タイ", in: state) == [3, 1])
        #expect(ids("ル", in: state) == [3, 1])
        #expect(ids("空", in: state) == [3, 2])
        #expect(ids("作者", in: state) == [1])
        #expect(ids("タイトルと", in: state) == [])
    }

    // MARK: Case-insensitivity

    @Test func asciiMatchesIgnoringCase() {
        let state = Self.state([("Girl in blue", "Kaito"), ("boy", "GIRLS' club"), ("Blue sky", "")])
        #expect(ids("GIRL", in: state) == [2, 1])
        #expect(ids("girl", in: state) == [2, 1])
        #expect(ids("gIrL In BlUe", in: state) == [1])
        #expect(ids("BLUE", in: state) == [3, 1])
        #expect(ids("kaito", in: state) == [1], "the artist name is matched too")
        #expect(ids("bluee", in: state) == [])
    }

    @Test func nonASCIILettersMatchIgnoringCase() {
        let state = Self.state([
            ("été à Paris", ""),          // 1: Latin with accents
            ("ΣΟΦΙΑ", ""),                // 2: Greek, upper case
            ("σοφια", ""),                // 3: Greek, lower case
            ("Москва", ""),               // 4: Cyrillic
            ("ａｂｃ ＸＹＺ", ""),         // 5: full-width Latin
            ("Untitled", "Élodie Ünal"),  // 6: non-ASCII artist name
            ("straße", ""),               // 7
        ])
        #expect(ids("ÉTÉ", in: state) == [1])
        #expect(ids("été", in: state) == [1])
        #expect(ids("À PARIS", in: state) == [1])
        #expect(ids("ΣΟΦΙΑ", in: state) == [3, 2])
        #expect(ids("σοφια", in: state) == [3, 2])
        #expect(ids("Σοφ", in: state) == [3, 2])
        #expect(ids("МОСКВА", in: state) == [4])
        #expect(ids("москва", in: state) == [4])
        #expect(ids("ＡＢＣ", in: state) == [5])
        #expect(ids("ｘｙｚ", in: state) == [5])
        #expect(ids("abc", in: state) == [], "full-width letters are not ASCII ones")
        #expect(ids("ÉLODIE", in: state) == [6])
        #expect(ids("ünal", in: state) == [6])
        #expect(ids("STRASSE", in: state) == [], "lower-casing, not case folding: ß stays ß")
        #expect(ids("STRAßE", in: state) == [7])
    }

    /// Matching is by scalars, as the bytes of the folded texts are compared: an "e" is found in
    /// a decomposed "é" (an e and a combining accent), as TextMatcher documents.
    @Test func decomposedTitlesMatchByScalars() {
        let state = Self.state([("Cafe\u{301}", ""), ("Café", "")])
        #expect(ids("CAFE\u{301}", in: state).contains(1))
        #expect(ids("café", in: state).contains(2))
        #expect(ids("CAFE", in: state) == [1], "the decomposed é holds an e; the composed one does not")
        #expect(ids("\u{301}", in: state) == [1], "a combining mark alone is a text like any other")
    }

    @Test func anEmptyTextMatchesEveryVisibleRow() {
        let state = Self.state([("a", ""), ("b", "")])
        #expect(ids("", in: state) == [2, 1])
        #expect(TextMatcher("") == nil)
        #expect(TextMatcher("\u{0}") != nil)
    }

    // MARK: Against a reference

    /// The scalars the random texts are made of: NUL, ASCII, a combining mark, letters whose
    /// lower case is longer or different in UTF-8, kana, CJK, Hangul, emoji, full-width letters.
    static let pool: [String] = [
        "\u{0}", "a", "A", "z", "Z", "e", "E", "i", "I", "s", "S", " ", "!", "\u{301}", "\u{307}",
        "ß", "İ", "ı", "Σ", "σ", "ς", "é", "É", "Д", "д", "ǅ", "ẞ", "Ω", "K",
        "カ", "ル", "ア", "ァ", "空", "猫", "한", "🌸", "😀", "Ａ", "ａ", "Ｚ", "\u{3000}",
    ]

    static func randomText(_ random: inout SeededRandom, maxLength: Int) -> String {
        let length = Int.random(in: 0...maxLength, using: &random)
        return (0..<length).map { _ in pool.randomElement(using: &random)! }.joined()
    }

    static func reference(_ haystack: String, contains needle: String) -> Bool {
        let text = Array(haystack.lowercased().utf8), word = Array(needle.lowercased().utf8)
        guard !word.isEmpty else { return true }
        guard text.count >= word.count else { return false }
        return (0...(text.count - word.count)).contains { start in text[start..<(start + word.count)].elementsEqual(word) }
    }

    @Test func agreesWithLowercasedContainmentOnRandomTexts() {
        var random = SeededRandom(seed: 26)
        var matched = 0
        let pairs = 5_000
        for _ in 0..<pairs {
            let needle = Self.randomText(&random, maxLength: 3)
            var haystack = Self.randomText(&random, maxLength: 10)
            // Half the haystacks hold the needle in another case, so both answers are common.
            if Bool.random(using: &random) {
                let cut = haystack.index(haystack.startIndex, offsetBy: Int.random(in: 0...haystack.count, using: &random))
                let cased = Bool.random(using: &random) ? needle.uppercased() : needle
                haystack = String(haystack[..<cut]) + cased + String(haystack[cut...])
            }
            let expected = Self.reference(haystack, contains: needle)
            guard let matcher = TextMatcher(needle) else {
                #expect(needle.lowercased().isEmpty, "no matcher for \(needle.debugDescription)")
                continue
            }
            #expect(!needle.lowercased().isEmpty)
            #expect(matcher.needle == Array(needle.lowercased().utf8), "\(needle.debugDescription)")
            let found = haystack.utf8.withContiguousStorageIfAvailable { matcher.matches($0) }
            #expect(found == expected, "\(needle.debugDescription) in \(haystack.debugDescription)")
            if expected { matched += 1 }
        }
        #expect(matched > pairs / 4 && matched < pairs - pairs / 10, "both answers are exercised: \(matched) of \(pairs)")
    }

    /// The matcher reused row after row (its scratch buffer) answers each row on its own.
    @Test func aMatcherReusedAcrossRowsAnswersEachOnItsOwn() throws {
        let matcher = try #require(TextMatcher("ΣΟ"))
        for (text, expected) in [("σοφια", true), ("タイトル", false), ("xσο", true), ("σ", false), ("ASCII only", false), ("ΣΟΣ", true)] {
            #expect(text.utf8.withContiguousStorageIfAvailable { matcher.matches($0) } == expected, "\(text)")
        }
    }

    // MARK: The blocks copied without a look-up

    /// Every scalar `hasNoCase` skips has no lowercase mapping, so skipping the look-up changes
    /// nothing.
    @Test func scalarsWithNoCaseReallyHaveNone() {
        var checked = 0
        var notSkipped: [UInt32] = [], cased: [UInt32] = []
        for value in Array(UInt32(0x3000)..<0xA000) + Array(UInt32(0xAC00)..<0xD7A4) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if !TextMatcher.hasNoCase(scalar) { notSkipped.append(value) }
            if scalar.properties.changesWhenLowercased || scalar.properties.lowercaseMapping != String(scalar) { cased.append(value) }
            checked += 1
        }
        #expect(notSkipped.isEmpty, "\(notSkipped.map { String($0, radix: 16) })")
        #expect(cased.isEmpty, "scalars with a lowercase mapping copied as they are: \(cased.map { String($0, radix: 16) })")
        #expect(checked == 0xA000 - 0x3000 + 0xD7A4 - 0xAC00)
        for cased in ["A", "Σ", "Д", "Ａ", "İ", "\u{2C00}", "\u{A640}", "\u{24B6}"] {
            let scalar = cased.unicodeScalars.first!
            #expect(!TextMatcher.hasNoCase(scalar), "\(cased) has a case")
            #expect(scalar.properties.changesWhenLowercased)
        }
    }

    /// Folding is idempotent: no scalar of any scalar's lowercase mapping changes when lowercased
    /// again. The matcher relies on it to take a match in the unfolded text for a match.
    @Test func foldingTwiceChangesNothing() {
        var notIdempotent: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenLowercased else { continue }
            if scalar.properties.lowercaseMapping.unicodeScalars.contains(where: { $0.properties.changesWhenLowercased }) {
                notIdempotent.append(value)
            }
        }
        #expect(notIdempotent.isEmpty, "\(notIdempotent.map { String($0, radix: 16) })")
    }

    /// A match in the text as it is and a match only its folding finds, in one matcher.
    @Test func aMatchNeedsFoldingOnlyWhereTheTextHasCase() throws {
        let matcher = try #require(TextMatcher("straße #9"))
        for (text, expected) in [("STRASSE #9", false), ("Straße #9 夏", true), ("STRAẞE #9", true), ("夏 straße #9", true), ("straße #8", false)] {
            #expect(text.utf8.withContiguousStorageIfAvailable { matcher.matches($0) } == expected, "\(text)")
        }
    }

    /// The only non-ASCII scalars folding to something that holds ASCII are the two the matcher
    /// looks for when its needle is ASCII.
    @Test func onlyTheListedScalarsFoldToASCII() throws {
        var found: [Unicode.Scalar] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenLowercased else { continue }
            if scalar.properties.lowercaseMapping.utf8.contains(where: { $0 < 0x80 }) { found.append(scalar) }
        }
        #expect(found == TextMatcher.scalarsFoldingToASCII)
        let matcher = try #require(TextMatcher("k1"))
        for (text, expected) in [("\u{212A}1 kelvin", true), ("K1", true), ("\u{212A}2", false), ("ke1", false)] {
            #expect(text.utf8.withContiguousStorageIfAvailable { matcher.matches($0) } == expected, "\(text)")
        }
        let dotted = try #require(TextMatcher("i\u{307}x"))
        #expect("Aİx".utf8.withContiguousStorageIfAvailable { dotted.matches($0) } == true)
    }
}
