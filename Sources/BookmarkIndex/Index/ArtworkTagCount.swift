/// A tag and how many bookmarks of a list (or of a filtered set) carry it.
public struct ArtworkTagCount: Sendable, Hashable {
    /// The tag's name.
    public var name: String
    /// Pixiv's translation of the tag, as most recently seen; `nil` when there is none.
    public var translatedName: String?
    /// How many bookmarks carry the tag.
    public var count: Int

    /// Creates a tag count.
    public init(name: String, translatedName: String? = nil, count: Int) {
        self.name = name
        self.translatedName = translatedName
        self.count = count
    }
}
