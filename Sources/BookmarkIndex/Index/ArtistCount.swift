/// An artist and how many bookmarks of a list (or of a filtered set) are of their works.
public struct ArtistCount: Sendable, Hashable {
    /// The artist's Pixiv user ID.
    public var artistID: Int
    /// The artist's name as the index last saw it (see
    /// ``BookmarkIndexState/topArtists(in:matching:limit:)``); empty when it never saw one.
    public var name: String
    /// How many bookmarks are of the artist's works.
    public var count: Int

    /// Creates an artist count.
    public init(artistID: Int, name: String, count: Int) {
        self.artistID = artistID
        self.name = name
        self.count = count
    }
}
