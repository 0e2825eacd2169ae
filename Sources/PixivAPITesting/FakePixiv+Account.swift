import BookmarkIndex
import Foundation
import PixivAPI

extension FakePixiv {
    /// One account of a ``FakePixiv``: its bookmarks, the works it can see, its tokens, the
    /// faults aimed at its requests, its own rate limit and its part of the request log.
    ///
    /// Get one from ``FakePixiv/account(_:)`` or ``FakePixiv/addAccount(userID:public:private:refreshToken:)``:
    ///
    /// ```swift
    /// let pixiv = FakePixiv(userID: 1, public: mine)
    /// let other = pixiv.addAccount(userID: 2, public: theirs, private: secrets, refreshToken: "token-2")
    /// other.enqueue(.serverError(), for: .bookmarks)   // only account 2's next page fails
    /// other.bookmark(work, restrict: .private)
    /// ```
    ///
    /// A handle: it holds no state of its own, so copies address the same account. Thread-safe
    /// as the fake is.
    public struct Account: Sendable {
        /// The fake this account belongs to.
        public let host: FakePixiv
        /// The account's user ID.
        public let userID: Int

        private func withState<Result: Sendable>(_ body: (inout AccountState) -> Result) -> Result {
            host.state.withLock { $0.withAccount(userID, body) }
        }

        // MARK: Content

        /// Replaces both lists (newest first) and forgets which works were withheld. O(n).
        ///
        /// An illust must not be in both lists (Pixiv keeps a work in one list); a duplicate
        /// traps. A snapshot that is not visible is withheld for its
        /// ``BookmarkedIllustSnapshot/vanishReason``.
        public func load(public publicBookmarks: [BookmarkedIllustSnapshot], private privateBookmarks: [BookmarkedIllustSnapshot]) {
            withState { $0.load(public: publicBookmarks, private: privateBookmarks) }
        }

        /// Bookmarks `illust` at the top of `restrict`, as Pixiv does: a work already bookmarked
        /// (in either list) moves there. `tags` are the user's bookmark tags for it.
        public func bookmark(_ illust: BookmarkedIllustSnapshot, restrict: Restrict, tags: [String] = []) {
            withState { account in
                account.register(illust)
                account.remove(illust.id)
                account.append(illust.id, to: restrict, tags: tags)
            }
        }

        /// Adds `illust` to the works the account can see, without bookmarking it, so a test can
        /// bookmark it through the API.
        public func addWork(_ illust: BookmarkedIllustSnapshot) {
            withState { $0.register(illust) }
        }

        /// Removes the bookmark of `illustID` from whichever list holds it.
        public func unbookmark(illustID: Int) {
            withState { _ = $0.remove(illustID) }
        }

        /// Makes a work invisible to the account for `reason`: it stays bookmarked and is served
        /// as that kind's placeholder (see ``FakePixiv``). ``PixivIllust/InvisibleReason/deleted``
        /// also makes the API answer 404 for it elsewhere (bookmark detail, adding a bookmark).
        ///
        /// The latest call wins, so a work can change kind (or come back from the dead) in a test.
        public func withhold(illustID: Int, reason: PixivIllust.InvisibleReason) {
            withState { $0.withheld[illustID] = reason }
        }

        /// Marks a work hidden without a stated reason: ``withhold(illustID:reason:)`` with
        /// ``PixivIllust/InvisibleReason/unknown``, what Pixiv sends for a work whose artist is
        /// still there (`limit_unknown_360.png` with the artist's ID). Not 404 elsewhere.
        public func hide(illustID: Int) {
            withhold(illustID: illustID, reason: .unknown)
        }

        /// Marks a work deleted: ``withhold(illustID:reason:)`` with
        /// ``PixivIllust/InvisibleReason/deleted``. It stays in the bookmark lists, served with
        /// `visible: false` and `user.id` 0, and the API answers 404 for it elsewhere.
        public func delete(illustID: Int) {
            withhold(illustID: illustID, reason: .deleted)
        }

        /// Makes a withheld work visible again: Pixiv serves its content once more. (A work
        /// loaded or added as a placeholder has no content to come back with: its placeholder's
        /// fields are served, marked visible.)
        public func restore(illustID: Int) {
            withState { $0.withheld[illustID] = nil }
        }

        /// The work as Pixiv serves it while the account can see it, withheld now or not: what an
        /// index that saw it before it vanished keeps of it. `nil` for a work the account never had.
        public func content(ofIllustID illustID: Int) -> BookmarkedIllustSnapshot? {
            withState { account in
                account.works[illustID] == nil ? nil : account.served(illustID, asIfVisible: true)
            }
        }

        /// The bookmarks of `restrict`, newest first, as Pixiv serves them now (withheld works as
        /// their placeholders). O(n).
        public func bookmarks(in restrict: Restrict) -> [BookmarkedIllustSnapshot] {
            withState { account in
                account.lists[restrict, default: []].reversed().map { account.served($0.illustID) }
            }
        }

        // MARK: Faults, limits and the log

        /// Queues `fault` for the next `count` requests of this account (those carrying its
        /// access token, or its refresh token at the token endpoint) to `endpoint` (`nil`: to any
        /// endpoint). Faults of every account apply in the order queued.
        public func enqueue(_ fault: Fault, for endpoint: Endpoint? = .bookmarks, count: Int = 1) {
            host.state.withLock { state in
                for _ in 0..<count { state.faults.append(PendingFault(userID: userID, endpoint: endpoint, fault: fault)) }
            }
        }

        /// Limits this account's own app-API requests to `limit` from now on, beside the host's
        /// per-address limit (see ``RateLimit``); `nil` turns it off. The window starts empty and
        /// any penalty of this account's ends; its trips so far stay in ``rateLimitTrips``.
        public func limitRequests(_ limit: RateLimit?) {
            withState { $0.rateLimiter = RateLimiter(limit: limit, trips: $0.rateLimiter.trips) }
        }

        /// When this account's own limit tripped, oldest first (the per-address limit's trips
        /// are ``FakePixiv/rateLimitTrips``).
        public var rateLimitTrips: [Date] {
            withState { $0.rateLimiter.trips }
        }

        /// The requests that were for this account, oldest first.
        public var requests: [LoggedRequest] {
            host.state.withLock { state in state.log.filter { $0.userID == userID } }
        }

        // MARK: Tokens

        /// The refresh token the token endpoint accepts for this account now (until
        /// ``revokeRefreshToken()``; a new one after each refresh once ``rotateRefreshTokens()``
        /// was called).
        public var refreshToken: String {
            withState { $0.refreshToken }
        }

        /// How many access tokens the token endpoint has issued this account.
        public var tokenRefreshCount: Int {
            withState { $0.refreshCount }
        }

        /// Issues this account an access token directly (not counted as a refresh), for clients
        /// that use a static token. It expires `lifetime` after the fake's `now`; `nil` never
        /// expires.
        public func issueAccessToken(lifetime: Duration? = nil) -> String {
            let issuedAt = host.now()
            let expiry = lifetime.map { issuedAt.addingTimeInterval($0.timeInterval) } ?? .distantFuture
            return host.state.withLock { $0.issueToken(for: userID, expiresAt: expiry) }
        }

        /// Revokes every access token this account was issued: the next request with any of them
        /// gets Pixiv's OAuth 400 and must refresh. Other accounts' tokens stay good.
        public func expireAccessTokens() {
            host.state.withLock { state in state.tokens = state.tokens.filter { $0.value.userID != userID } }
        }

        /// Kills this account's refresh token: the token endpoint answers `invalid_grant` for it
        /// from now on.
        public func revokeRefreshToken() {
            withState { $0.refreshTokenIsValid = false }
        }

        /// From now on every refresh of this account answers with a new refresh token, and only
        /// the newest one is accepted: what an OAuth server that rotates refresh tokens does.
        public func rotateRefreshTokens() {
            withState { $0.rotatesRefreshTokens = true }
        }

        /// The account's display name, as the token endpoint reports it: `fake user <userID>`.
        public var userName: String { "fake user \(userID)" }
        /// The account's login name, as the token endpoint reports it: `fake_<userID>`.
        public var loginName: String { "fake_\(userID)" }
    }
}
