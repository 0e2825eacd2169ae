extension ListIndex {
    /// A row's texts as the list's text arena keeps them, in its order: the title, the artist's
    /// name, the thumbnail URL as ``ThumbnailCode`` codes it (no bytes when there is none), and
    /// the type's raw value.
    struct RowText {
        var title: String
        var artistName: String
        var thumbnail: [UInt8]
        var type: String

        /// Calls `body` with each part's bytes in the arena's order while it returns `true`;
        /// returns whether every call did.
        func forEachPart(_ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
            var (title, artistName, type) = (title, artistName, type)
            return title.withUTF8(body) && artistName.withUTF8(body) && thumbnail.withUnsafeBufferPointer(body) && type.withUTF8(body)
        }
    }
}
