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
    /// The user's own age setting hides this R-18 work: still bookmarked, it shows again once
    /// the user turns on R-18 display on pixiv.net (see ``advice``). Journal schema 4.
    case hiddenByR18Setting
    /// The user's own age setting hides this R-18G work (see ``advice``). Journal schema 4.
    case hiddenByR18GSetting

    /// Words for a person, short enough for a column: "deleted", "My pixiv only",
    /// "sanity-limited", "unviewable", "unknown", "R-18 setting", "R-18G setting" (``advice``
    /// says the last two in full).
    public var description: String {
        switch self {
        case .deleted: "deleted"
        case .myPixivOnly: "My pixiv only"
        case .sanityLimited: "sanity-limited"
        case .unviewable: "unviewable"
        case .unknown: "unknown"
        case .hiddenByR18Setting: "R-18 setting"
        case .hiddenByR18GSetting: "R-18G setting"
        }
    }

    /// What the user can do to see the work again, for an app to show; `nil` when nothing they
    /// can change would bring it back.
    public var advice: String? {
        switch self {
        case .hiddenByR18Setting: "Hidden by your age setting: turn on R-18 display on pixiv.net to see it."
        case .hiddenByR18GSetting: "Hidden by your age setting: turn on R-18G display on pixiv.net to see it."
        case .deleted, .myPixivOnly, .sanityLimited, .unviewable, .unknown: nil
        }
    }
}
