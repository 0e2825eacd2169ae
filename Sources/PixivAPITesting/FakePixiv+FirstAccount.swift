import BookmarkIndex
import Foundation
import PixivAPI

/// The single-account API: each of these addresses the first account (the initializer's), as
/// ``FakePixiv/firstAccount`` does. A test of one account never needs ``FakePixiv/Account``.
extension FakePixiv {
    /// The first account's refresh token, as the token endpoint accepts it now
    /// (``Account/refreshToken``).
    public var refreshToken: String { firstAccount.refreshToken }

    /// How many access tokens the token endpoint has issued the first account
    /// (``Account/tokenRefreshCount``).
    public var tokenRefreshCount: Int { firstAccount.tokenRefreshCount }

    /// The first account's display name, as the token endpoint reports it.
    public var userName: String { firstAccount.userName }
    /// The first account's login name, as the token endpoint reports it.
    public var account: String { firstAccount.loginName }

    /// Replaces the first account's lists (``Account/load(public:private:)``).
    public func load(public publicBookmarks: [BookmarkedIllustSnapshot], private privateBookmarks: [BookmarkedIllustSnapshot]) {
        firstAccount.load(public: publicBookmarks, private: privateBookmarks)
    }

    /// Bookmarks `illust` at the top of the first account's `restrict`
    /// (``Account/bookmark(_:restrict:tags:)``).
    public func bookmark(_ illust: BookmarkedIllustSnapshot, restrict: Restrict, tags: [String] = []) {
        firstAccount.bookmark(illust, restrict: restrict, tags: tags)
    }

    /// Adds `illust` to the works the first account can see (``Account/addWork(_:)``).
    public func addWork(_ illust: BookmarkedIllustSnapshot) {
        firstAccount.addWork(illust)
    }

    /// Removes the first account's bookmark of `illustID` (``Account/unbookmark(illustID:)``).
    public func unbookmark(illustID: Int) {
        firstAccount.unbookmark(illustID: illustID)
    }

    /// Makes a work invisible to the first account for `reason`
    /// (``Account/withhold(illustID:reason:)``).
    public func withhold(illustID: Int, reason: PixivIllust.InvisibleReason) {
        firstAccount.withhold(illustID: illustID, reason: reason)
    }

    /// Marks a work of the first account hidden without a stated reason (``Account/hide(illustID:)``).
    public func hide(illustID: Int) {
        firstAccount.hide(illustID: illustID)
    }

    /// Marks a work of the first account deleted (``Account/delete(illustID:)``).
    public func delete(illustID: Int) {
        firstAccount.delete(illustID: illustID)
    }

    /// Makes a work the first account could not see visible again (``Account/restore(illustID:)``).
    public func restore(illustID: Int) {
        firstAccount.restore(illustID: illustID)
    }

    /// The work as Pixiv serves it to the first account while visible
    /// (``Account/content(ofIllustID:)``).
    public func content(ofIllustID illustID: Int) -> BookmarkedIllustSnapshot? {
        firstAccount.content(ofIllustID: illustID)
    }

    /// The first account's bookmarks of `restrict`, newest first (``Account/bookmarks(in:)``).
    public func bookmarks(in restrict: Restrict) -> [BookmarkedIllustSnapshot] {
        firstAccount.bookmarks(in: restrict)
    }

    /// Issues the first account an access token directly (``Account/issueAccessToken(lifetime:)``).
    public func issueAccessToken(lifetime: Duration? = nil) -> String {
        firstAccount.issueAccessToken(lifetime: lifetime)
    }

    /// Revokes every access token the first account was issued (``Account/expireAccessTokens()``).
    public func expireAccessTokens() {
        firstAccount.expireAccessTokens()
    }

    /// Kills the first account's refresh token (``Account/revokeRefreshToken()``).
    public func revokeRefreshToken() {
        firstAccount.revokeRefreshToken()
    }

    /// Rotates the first account's refresh token on every refresh (``Account/rotateRefreshTokens()``).
    public func rotateRefreshTokens() {
        firstAccount.rotateRefreshTokens()
    }
}
