/// Which of a user's two bookmark lists a bookmark lives in.
///
/// The raw values are spelled as Pixiv spells them in its `restrict` query parameter,
/// so a `Restrict` can be sent to the API unchanged.
public enum Restrict: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The user's public bookmarks, visible to other users.
    case `public`
    /// The user's private bookmarks, visible only to the user.
    case `private`

    public var description: String { rawValue }
}
