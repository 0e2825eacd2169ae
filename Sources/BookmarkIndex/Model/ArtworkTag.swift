/// An artwork tag as Pixiv sends it: its name and, when Pixiv has one for the request's
/// `Accept-Language`, its translation.
public struct ArtworkTag: Sendable, Hashable, Codable {
    /// The tag as the artist wrote it, for example `"オリジナル"`.
    public var name: String
    /// Pixiv's translation of the tag, for example `"original"`; `nil` when there is none.
    public var translatedName: String?

    /// Creates a tag.
    public init(name: String, translatedName: String? = nil) {
        self.name = name
        self.translatedName = translatedName
    }
}
