import Foundation

/// A dense number standing for one interned tag name.
typealias TagID = Int32

/// A dense number standing for one interned tag as a row carries it: a name and a translation.
typealias TagRefID = UInt32

/// Interns tags and resolves a filter's words to them.
///
/// Every distinct name gets a ``TagID`` (what histograms and postings count), and every
/// distinct (name, translation) pair a ``TagRefID`` (what rows store: four bytes a tag instead
/// of a `TagRef` of their own). Strings are keyed by their UTF-8 bytes, so interning never pays
/// for Unicode normalization. The table only grows: an ID whose count has dropped to zero in
/// both lists simply has empty postings.
struct TagTable: Sendable {
    private(set) var names: [String] = []
    /// The most recently seen translation of each name.
    private(set) var translations: [String?] = []
    /// Every interned (name, translation) pair, by ``TagRefID``.
    private(set) var refs: [TagRef] = []
    /// The name of each pair, by ``TagRefID``.
    private(set) var nameOfRef: [TagID] = []
    private var idByName: [UTF8Key: TagID] = [:]
    private var refByPair: [PairKey: TagRefID] = [:]
    private var translationPool: [UTF8Key: String] = [:]
    /// A lowercased name or translation → the tags that have it.
    private var idsByFoldedWord: [String: [TagID]] = [:]

    private struct PairKey: Hashable {
        var name: UTF8Key
        var translation: UTF8Key?
    }

    var count: Int { names.count }

    func id(ofName name: String) -> TagID? { idByName[UTF8Key(name)] }

    /// The tags whose name or translation equals `word`, ignoring case.
    func ids(matching word: String) -> [TagID] { idsByFoldedWord[word.lowercased()] ?? [] }

    /// Interns `tag`. Amortized O(1): one hash of its bytes when the pair is known.
    mutating func intern(_ tag: TagRef) -> TagRefID {
        let key = PairKey(name: UTF8Key(tag.name), translation: tag.translatedName.map(UTF8Key.init))
        if let ref = refByPair[key] { return ref }

        let nameID: TagID
        if let existing = idByName[key.name] {
            nameID = existing
        } else {
            nameID = TagID(names.count)
            names.append(tag.name)
            translations.append(nil)
            idByName[key.name] = nameID
            addFoldedWord(tag.name, for: nameID)
        }
        let translation = key.translation.map { translation in
            // Share the string with earlier pairs that have the same translation.
            if let pooled = translationPool[translation] { return pooled }
            translationPool[translation] = translation.string
            return translation.string
        }
        if let translation, translations[Int(nameID)] != translation {
            translations[Int(nameID)] = translation
            addFoldedWord(translation, for: nameID)
        }
        let ref = TagRefID(refs.count)
        refs.append(TagRef(name: names[Int(nameID)], translatedName: translation))
        nameOfRef.append(nameID)
        refByPair[key] = ref
        return ref
    }

    private mutating func addFoldedWord(_ word: String, for id: TagID) {
        let folded = word.lowercased()
        if idsByFoldedWord[folded, default: []].contains(id) { return }
        idsByFoldedWord[folded, default: []].append(id)
    }
}

/// A string as a dictionary key that hashes and compares its UTF-8 bytes: faster than
/// `String`'s own hashing, which normalizes non-ASCII text first.
struct UTF8Key: Hashable, Sendable {
    let string: String

    init(_ string: String) {
        var string = string
        string.makeContiguousUTF8()
        self.string = string
    }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    static func == (a: UTF8Key, b: UTF8Key) -> Bool {
        var a = a.string, b = b.string
        return a.withUTF8 { a in
            b.withUTF8 { b in a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) }
        }
    }
}
