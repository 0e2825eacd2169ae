/// A dense number standing for one interned tag name.
typealias TagID = Int32

/// Interns tag strings and resolves a filter's words to tags.
///
/// Every distinct tag name gets one ``TagID``; rows share the table's `String` instances instead
/// of each holding its own copy. The table only grows: an ID whose count has dropped to zero in
/// both lists simply has empty postings.
struct TagTable: Sendable {
    private(set) var names: [String] = []
    /// The most recently seen translation of each tag.
    private(set) var translations: [String?] = []
    private var idByName: [String: TagID] = [:]
    /// A lowercased name or translation → the tags that have it.
    private var idsByFoldedWord: [String: [TagID]] = [:]
    /// Interned translation strings.
    private var translationPool: [String: String] = [:]

    var count: Int { names.count }

    func id(ofName name: String) -> TagID? { idByName[name] }

    /// The tags whose name or translation equals `word`, ignoring case.
    func ids(matching word: String) -> [TagID] { idsByFoldedWord[word.lowercased()] ?? [] }

    /// Interns `tag`, returning its ID and the tag rebuilt from shared strings.
    mutating func intern(_ tag: TagRef) -> (TagID, TagRef) {
        let id: TagID
        if let existing = idByName[tag.name] {
            id = existing
        } else {
            id = TagID(names.count)
            names.append(tag.name)
            translations.append(nil)
            idByName[tag.name] = id
            addFoldedWord(tag.name, for: id)
        }
        var translated: String?
        if let translation = tag.translatedName {
            if let pooled = translationPool[translation] {
                translated = pooled
            } else {
                translationPool[translation] = translation
                translated = translation
            }
            if translations[Int(id)] != translation {
                translations[Int(id)] = translation
                addFoldedWord(translation, for: id)
            }
        }
        return (id, TagRef(name: names[Int(id)], translatedName: translated))
    }

    private mutating func addFoldedWord(_ word: String, for id: TagID) {
        let folded = word.lowercased()
        if idsByFoldedWord[folded, default: []].contains(id) { return }
        idsByFoldedWord[folded, default: []].append(id)
    }
}
