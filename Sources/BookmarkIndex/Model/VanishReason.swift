/// Why a bookmarked work vanished: why Pixiv now sends a placeholder in its place (no title, no
/// tags, a stand-in image) while it stays in the user's bookmark list.
///
/// Pixiv says why only through the placeholder's image; `BookmarkSync` maps PixivAPI's
/// `PixivIllust.InvisibleReason` to this. The raw values are how the journal spells them.
public enum VanishReason: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The work was deleted (Pixiv answers 404 for it everywhere else).
    case deleted
    /// Only the artist's My pixiv friends may see it now.
    case myPixivOnly
    /// The signed-in user's sanity-level or age settings hold it back.
    case sanityLimited
    /// Pixiv does not let the signed-in user see it.
    case unviewable
    /// Pixiv did not say. Rows written before the index recorded reasons (journal schema 1)
    /// have this one too.
    case unknown

    /// Words for a person: "deleted", "My pixiv only", "sanity-limited", "unviewable", "unknown".
    public var description: String {
        switch self {
        case .deleted: "deleted"
        case .myPixivOnly: "My pixiv only"
        case .sanityLimited: "sanity-limited"
        case .unviewable: "unviewable"
        case .unknown: "unknown"
        }
    }
}
