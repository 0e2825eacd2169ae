/// What the bookmark ID in a page's cursor (Pixiv's `max_bookmark_id` in `next_url`) names.
///
/// Pixiv does not document it, and the engine's proof of known ground must hold either way:
/// the fakes serve both, so tests can run the same sync under each.
public enum BookmarkCursorMeaning: Sendable, Hashable, CaseIterable {
    /// The ID of the next page's first bookmark: the next page holds the IDs at most it.
    case firstOfNextPage
    /// The ID of this page's last bookmark: the next page holds the IDs below it.
    case lastOfThisPage
}
