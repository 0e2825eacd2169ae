import BookmarkJSON
import Foundation

/// A dense number standing for one interned tag name.
typealias TagID = Int32

/// A dense number standing for one interned tag as a row carries it: a name and a translation.
typealias TagRefID = UInt32

/// Interns tags and resolves a filter's words to them.
///
/// Every distinct name gets a ``TagID`` (what histograms and postings count), and every
/// distinct (name, translation) pair a ``TagRefID`` (what rows store: four bytes a tag instead
/// of a `ArtworkTag` of their own). Strings are keyed by their UTF-8 bytes, so interning never pays
/// for Unicode normalization. The table only grows: an ID whose count has dropped to zero in
/// both lists simply has empty postings.
struct TagTable: Sendable {
    private(set) var names: [String] = []
    /// The pairs of each name, by ``TagID``: what a histogram picks a name's translation from.
    private(set) var refsOfName: [[TagRefID]] = []
    /// Every interned (name, translation) pair, by ``TagRefID``; in chunks, so that the pages a
    /// query hands out can hold it while interning goes on (see ``ChunkedArray``).
    private(set) var refs = ChunkedArray<ArtworkTag>()
    /// The name of each pair, by ``TagRefID``.
    private(set) var nameOfRef: [TagID] = []
    private var idByName: [UTF8Key: TagID] = [:]
    /// Every pair's position in ``refs``, by a hash of its bytes.
    private var refByPair = HashIndex()
    private var translationPool: [UTF8Key: String] = [:]
    /// A lowercased name → the tags that have it.
    private var idsByFoldedName: [String: [TagID]] = [:]
    /// A lowercased translation → the pairs that have it.
    private var refsByFoldedTranslation: [String: [TagRefID]] = [:]
    /// Every lowercased name and translation, for finding tags by part of one.
    private(set) var search = TagSearchIndex()
    /// The heap bytes of the strings interned (names, translations, their folded forms) and of
    /// the small arrays per name and per folded string, added up as they are interned.
    private var internedBytes = 0

    var count: Int { names.count }

    /// An estimate of the heap bytes the table keeps: its arrays and dictionaries by capacity,
    /// and the strings and small lists counted as they were interned. O(1).
    var residentBytes: Int {
        ResidentBytes.of(names) + ResidentBytes.of(refsOfName) + ResidentBytes.of(refs) + ResidentBytes.of(nameOfRef)
            + ResidentBytes.of(idByName) + refByPair.residentBytes + ResidentBytes.of(translationPool)
            + ResidentBytes.of(idsByFoldedName) + ResidentBytes.of(refsByFoldedTranslation) + internedBytes
            + search.residentBytes
    }

    func id(ofName name: String) -> TagID? { idByName[UTF8Key(name)] }

    /// The tags whose name equals `word`, or that `hasRef` pairs with a translation equal to
    /// `word`, ignoring case. `hasRef` says whether a list's rows carry a pair, so that a tag
    /// matches by a translation only while some row carries it with that translation.
    func ids(matching word: String, hasRef: (TagRefID) -> Bool) -> [TagID] {
        let folded = word.lowercased()
        var ids = idsByFoldedName[folded] ?? []
        for ref in refsByFoldedTranslation[folded] ?? [] where hasRef(ref) && !ids.contains(nameOfRef[Int(ref)]) {
            ids.append(nameOfRef[Int(ref)])
        }
        return ids
    }

    /// Interns `tag`. Amortized O(1): one hash of its bytes when the pair is known.
    mutating func intern(_ tag: ArtworkTag) -> TagRefID {
        intern(tag, hash: Self.hash(tag))
    }

    /// Interns `tag`, whose ``hash(_:)`` is `hash` (computed where the tag was read).
    mutating func intern(_ tag: ArtworkTag, hash: UInt64) -> TagRefID {
        if let known = refByPair.find(hash, where: { Self.sameBytes(refs[$0], tag) }) { return TagRefID(known) }

        let name = UTF8Key(tag.name)
        let nameID: TagID
        if let existing = idByName[name] {
            nameID = existing
        } else {
            nameID = TagID(names.count)
            names.append(name.string)
            refsOfName.append([])
            idByName[name] = nameID
            let folded = tag.name.lowercased()
            // The name (shared by names and idByName), its folded key, and a list of pairs and
            // of IDs (idsByFoldedName) with room for a few.
            internedBytes += ResidentBytes.of(name.string) + ResidentBytes.of(folded) + 2 * (ResidentBytes.objectHeader + 16)
            idsByFoldedName[folded, default: []].append(nameID)
            search.add(name: nameID, folded: folded)
        }
        let translation = tag.translatedName.map { translatedName in
            // Share the string with earlier pairs that have the same translation.
            let translation = UTF8Key(translatedName)
            if let pooled = translationPool[translation] { return pooled }
            translationPool[translation] = translation.string
            internedBytes += ResidentBytes.of(translation.string) + ResidentBytes.of(translatedName.lowercased()) + ResidentBytes.objectHeader + 16
            return translation.string
        }
        let ref = TagRefID(refByPair.insert(hash))
        refs.append(ArtworkTag(name: names[Int(nameID)], translatedName: translation))
        nameOfRef.append(nameID)
        refsOfName[Int(nameID)].append(ref)
        if let translation {
            let folded = translation.lowercased()
            refsByFoldedTranslation[folded, default: []].append(ref)
            search.add(translationOf: ref, folded: folded)
        }
        return ref
    }

    /// A hash of the pair's bytes: its name's, then its translation's, if any.
    static func hash(_ tag: ArtworkTag) -> UInt64 {
        let name = tag.name.withUTF8Bytes { XXH64.hash($0) }
        guard let translation = tag.translatedName else { return name }
        return translation.withUTF8Bytes { XXH64.hash($0, seed: name &+ 1) }
    }

    /// Whether the two pairs have the same bytes (Pixiv keeps two normalizations of one text
    /// apart, and so does the table).
    static func sameBytes(_ a: ArtworkTag, _ b: ArtworkTag) -> Bool {
        guard a.name.hasSameUTF8(as: b.name) else { return false }
        switch (a.translatedName, b.translatedName) {
        case (nil, nil): return true
        case let (a?, b?): return a.hasSameUTF8(as: b)
        default: return false
        }
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
        string.withUTF8Bytes { hasher.combine(bytes: $0) }
    }

    static func == (a: UTF8Key, b: UTF8Key) -> Bool {
        a.string.hasSameUTF8(as: b.string)
    }
}

extension TagTable {
    /// The table that interning `refs` in order builds, with each ref keeping its position as
    /// its ``TagRefID``; `nil` when `refs` holds a pair twice (so positions would shift).
    init?(refs: some Sequence<ArtworkTag>) {
        self.init()
        for (index, ref) in refs.enumerated() where intern(ref) != TagRefID(index) {
            return nil
        }
    }
}
