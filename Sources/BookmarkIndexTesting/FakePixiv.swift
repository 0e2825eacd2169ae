import BookmarkIndex
import BookmarkSync
import Foundation
import PixivAPI
import Synchronization

/// An in-memory Pixiv account that answers Pixiv's app API: the bookmark lists, adding and
/// removing bookmarks, bookmark detail and tags, user detail and the OAuth token endpoint.
///
/// It *is* an ``HTTPTransport``, so a test plugs it straight into `PixivClient` without sockets;
/// ``LoopbackServer`` serves the very same object over real HTTP, and it behaves identically
/// either way.
///
/// - Pagination as Pixiv: 30 per page, newest bookmark first; `next_url` carries
///   `max_bookmark_id`, the bookmark ID of the first work of the next page (or of this page's
///   last, ``cursorMeaning``).
/// - One work is in at most one list: bookmarking it again moves it to the top of the list it is
///   added to (possibly the other one).
/// - Works the account can no longer see (``withhold(illustID:reason:)``, ``hide(illustID:)``,
///   ``delete(illustID:)``) stay bookmarked and are served as Pixiv serves them: `visible: false`,
///   empty title and tags, 100 × 100, sanity level 0, zero counts, every image URL the
///   placeholder of their ``PixivIllust/InvisibleReason`` (``placeholderImageURL(for:)``),
///   `restrict` 1 for My pixiv, and `user.id` 0 for a deleted work, which is also 404 elsewhere.
/// - Auth as Pixiv: every API request needs `Authorization: Bearer` with a token this fake
///   issued (``issueAccessToken(lifetime:)`` or the token endpoint) that has neither expired by
///   `now` nor been revoked; else Pixiv's OAuth 400.
/// - Faults queued with ``enqueue(_:for:count:)`` are applied to the next matching requests.
/// - An optional rate limit (``limitRequests(_:)``, ``RateLimit``) answers Pixiv's 403
///   "Rate Limit" for a penalty after too many app-API requests within a sliding window.
/// - Every request is logged (``requests``) with a timestamp from `now`.
///
/// Thread-safe: all state is behind one `Mutex`; requests may arrive from many tasks at once.
public final class FakePixiv: HTTPTransport, Sendable {
    /// Bookmarks per page, as Pixiv.
    public static let pageSize = 30
    /// The URL Pixiv serves in place of the images of deleted works and of works invisible for
    /// a reason it does not give: `limit_unknown_360.png`.
    public static let placeholderImageURL = placeholderImageURL(for: .unknown)

    /// The URL Pixiv serves in place of every image of a work invisible for `reason`, for
    /// example `https://s.pximg.net/common/images/limit_mypixiv_360.png`. A snapshot that is not
    /// visible and carries it as its thumbnail is served as that kind.
    public static func placeholderImageURL(for reason: PixivIllust.InvisibleReason) -> String {
        reason.placeholderImageURL
    }

    /// The account's user ID.
    public let userID: Int
    /// The refresh token the token endpoint accepts now (until ``revokeRefreshToken()``; a new
    /// one after each refresh once ``rotateRefreshTokens()`` was called).
    public var refreshToken: String { state.withLock { $0.refreshToken } }
    /// How long an access token from the token endpoint lives.
    public let accessTokenLifetime: Duration

    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void
    let state: Mutex<State>

    /// Creates an account.
    ///
    /// - Parameters:
    ///   - userID: the account's user ID.
    ///   - public: the public bookmarks, newest first.
    ///   - private: the private bookmarks, newest first. An illust must not be in both lists.
    ///   - refreshToken: the refresh token the token endpoint accepts.
    ///   - accessTokenLifetime: the `expires_in` of issued access tokens (Pixiv's is an hour).
    ///   - now: the clock of the request log and of token expiry.
    ///   - sleep: how ``Fault/delay(_:)`` waits; inject a test clock's sleep.
    public init(
        userID: Int = 1,
        public publicBookmarks: [BookmarkedIllustSnapshot] = [],
        private privateBookmarks: [BookmarkedIllustSnapshot] = [],
        refreshToken: String = "fake-refresh-token",
        accessTokenLifetime: Duration = .seconds(3600),
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.userID = userID
        self.accessTokenLifetime = accessTokenLifetime
        self.now = now
        self.sleep = sleep
        self.state = Mutex(State(refreshToken: refreshToken))
        load(public: publicBookmarks, private: privateBookmarks)
    }

    /// What `max_bookmark_id` in a `next_url` names; ``BookmarkCursorMeaning/firstOfNextPage``
    /// unless set (Pixiv does not document which it is).
    public var cursorMeaning: BookmarkCursorMeaning {
        get { state.withLock { $0.cursorMeaning } }
        set { state.withLock { $0.cursorMeaning = newValue } }
    }

    // MARK: Account content

    /// Replaces both lists (newest first) and forgets which works were withheld. O(n).
    ///
    /// An illust must not be in both lists (Pixiv keeps a work in one list); a duplicate
    /// traps. A snapshot that is not visible is withheld for its
    /// ``BookmarkedIllustSnapshot/vanishReason``.
    public func load(public publicBookmarks: [BookmarkedIllustSnapshot], private privateBookmarks: [BookmarkedIllustSnapshot]) {
        state.withLock { state in
            state.reset()
            for (restrict, illusts) in [(Restrict.public, publicBookmarks), (.private, privateBookmarks)] {
                for illust in illusts.reversed() {
                    precondition(state.location[illust.id] == nil, "illust \(illust.id) is bookmarked twice")
                    state.register(illust)
                    state.append(illust.id, to: restrict, tags: [])
                }
            }
        }
    }

    /// Bookmarks `illust` at the top of `restrict`, as Pixiv does: a work already bookmarked
    /// (in either list) moves there. `tags` are the user's bookmark tags for it.
    public func bookmark(_ illust: BookmarkedIllustSnapshot, restrict: Restrict, tags: [String] = []) {
        state.withLock { state in
            state.register(illust)
            state.remove(illust.id)
            state.append(illust.id, to: restrict, tags: tags)
        }
    }

    /// Adds `illust` to the works the account can see, without bookmarking it, so a test can
    /// bookmark it through the API.
    public func addWork(_ illust: BookmarkedIllustSnapshot) {
        state.withLock { $0.register(illust) }
    }

    /// Removes the bookmark of `illustID` from whichever list holds it.
    public func unbookmark(illustID: Int) {
        state.withLock { _ = $0.remove(illustID) }
    }

    /// Makes a work invisible to the account for `reason`: it stays bookmarked and is served as
    /// that kind's placeholder (see the type's summary). ``PixivIllust/InvisibleReason/deleted``
    /// also makes the API answer 404 for it elsewhere (bookmark detail, adding a bookmark).
    ///
    /// The latest call wins, so a work can change kind (or come back from the dead) in a test.
    public func withhold(illustID: Int, reason: PixivIllust.InvisibleReason) {
        state.withLock { $0.withheld[illustID] = reason }
    }

    /// Marks a work hidden without a stated reason: ``withhold(illustID:reason:)`` with
    /// ``PixivIllust/InvisibleReason/unknown``, what Pixiv sends for a work whose artist is still
    /// there (`limit_unknown_360.png` with the artist's ID). Not 404 elsewhere.
    public func hide(illustID: Int) {
        withhold(illustID: illustID, reason: .unknown)
    }

    /// Marks a work deleted: ``withhold(illustID:reason:)`` with
    /// ``PixivIllust/InvisibleReason/deleted``. It stays in the bookmark lists, served with
    /// `visible: false` and `user.id` 0, and the API answers 404 for it elsewhere.
    public func delete(illustID: Int) {
        withhold(illustID: illustID, reason: .deleted)
    }

    /// Makes a withheld work visible again: Pixiv serves its content once more. (A work loaded
    /// or added as a placeholder has no content to come back with: its placeholder's fields are
    /// served, marked visible.)
    public func restore(illustID: Int) {
        state.withLock { $0.withheld[illustID] = nil }
    }

    /// The work as Pixiv serves it while the account can see it, withheld now or not: what an
    /// index that saw it before it vanished keeps of it. `nil` for a work the fake never had.
    public func content(ofIllustID illustID: Int) -> BookmarkedIllustSnapshot? {
        state.withLock { state in
            state.works[illustID] == nil ? nil : state.served(illustID, asIfVisible: true)
        }
    }

    /// The bookmarks of `restrict`, newest first, as Pixiv serves them now (withheld works as
    /// their placeholders). O(n).
    public func bookmarks(in restrict: Restrict) -> [BookmarkedIllustSnapshot] {
        state.withLock { state in
            state.lists[restrict, default: []].reversed().map { state.served($0.illustID) }
        }
    }

    // MARK: Faults and tokens

    /// Queues `fault` for the next `count` requests to `endpoint` (`nil`: to any endpoint).
    /// Faults apply in the order queued.
    public func enqueue(_ fault: Fault, for endpoint: Endpoint? = .bookmarks, count: Int = 1) {
        state.withLock { state in
            for _ in 0..<count { state.faults.append((endpoint, fault)) }
        }
    }

    /// Drops every fault still queued.
    public func clearFaults() {
        state.withLock { $0.faults.removeAll() }
    }

    /// Issues an access token directly (not counted as a refresh), for clients that use a
    /// static token. It expires `lifetime` after `now`; `nil` never expires.
    public func issueAccessToken(lifetime: Duration? = nil) -> String {
        let issuedAt = now()
        return state.withLock { state in
            state.issueToken(expiresAt: lifetime.map { issuedAt.addingTimeInterval($0.timeInterval) } ?? .distantFuture)
        }
    }

    /// Revokes every access token issued so far: the next request with any of them gets Pixiv's
    /// OAuth 400 and must refresh.
    public func expireAccessTokens() {
        state.withLock { $0.tokens.removeAll() }
    }

    /// Kills the refresh token: the token endpoint answers `invalid_grant` from now on.
    public func revokeRefreshToken() {
        state.withLock { $0.refreshTokenIsValid = false }
    }

    /// From now on every refresh answers with a new refresh token, and only the newest one is
    /// accepted: what an OAuth server that rotates refresh tokens does.
    public func rotateRefreshTokens() {
        state.withLock { $0.rotatesRefreshTokens = true }
    }

    /// Every request received so far, oldest first.
    public var requests: [LoggedRequest] {
        state.withLock { $0.log }
    }

    /// How many access tokens the token endpoint has issued.
    public var tokenRefreshCount: Int {
        state.withLock { $0.refreshCount }
    }

    // MARK: HTTPTransport

    /// Answers `request` in process, exactly as the loopback server would over HTTP.
    ///
    /// - Throws: `URLError(.networkConnectionLost)` for a ``Fault/dropConnection``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        switch await respond(to: request) {
        case .response(let response): return response
        case .drop: throw URLError(.networkConnectionLost)
        }
    }
}

extension FakePixiv {
    /// A bookmark in a list.
    struct Entry: Sendable {
        var illustID: Int
        var bookmarkID: Int
        var tags: [String]
    }

    /// Everything mutable about the account.
    struct State: Sendable {
        /// Each list oldest first, so bookmark IDs ascend and appending is O(1).
        var lists: [Restrict: [Entry]] = [:]
        var location: [Int: (restrict: Restrict, bookmarkID: Int)] = [:]
        var works: [Int: BookmarkedIllustSnapshot] = [:]
        /// Why each work the account can no longer see is withheld; the one source of truth.
        var withheld: [Int: PixivIllust.InvisibleReason] = [:]
        var nextBookmarkID = 1_000
        var cursorMeaning = BookmarkCursorMeaning.firstOfNextPage
        var faults: [(Endpoint?, Fault)] = []
        var log: [LoggedRequest] = []
        var tokens: [String: Date] = [:]
        var tokenSerial = 0
        var refreshToken: String
        var refreshTokenIsValid = true
        var rotatesRefreshTokens = false
        var refreshCount = 0
        var oauth = OAuthState()
        /// The rate-limit model (FakePixiv+RateLimit.swift); off until `limitRequests(_:)`.
        var rateLimiter = RateLimiter()

        mutating func reset() {
            lists = [.public: [], .private: []]
            location = [:]
            works = [:]
            withheld = [:]
        }

        /// Adds a work to the catalogue; a snapshot that is not visible is withheld for the
        /// reason it carries (see ``FakePixiv/load(public:private:)``). A visible one does not
        /// lift an earlier withholding.
        mutating func register(_ illust: BookmarkedIllustSnapshot) {
            works[illust.id] = illust
            if let reason = illust.vanishReason { withheld[illust.id] = reason.invisibleReason }
        }

        mutating func append(_ illustID: Int, to restrict: Restrict, tags: [String]) {
            nextBookmarkID += 1
            lists[restrict, default: []].append(Entry(illustID: illustID, bookmarkID: nextBookmarkID, tags: tags))
            location[illustID] = (restrict, nextBookmarkID)
        }

        /// Removes the bookmark of `illustID`; O(log n) to find, O(n) to close the gap.
        @discardableResult
        mutating func remove(_ illustID: Int) -> Bool {
            guard let (restrict, bookmarkID) = location.removeValue(forKey: illustID) else { return false }
            let index = Self.firstIndex(in: lists[restrict, default: []], atLeast: bookmarkID)
            lists[restrict]?.remove(at: index)
            return true
        }

        /// The first index of `list` whose bookmark ID is `>= bookmarkID`.
        static func firstIndex(in list: [Entry], atLeast bookmarkID: Int) -> Int {
            var low = 0, high = list.count
            while low < high {
                let mid = (low + high) / 2
                if list[mid].bookmarkID < bookmarkID { low = mid + 1 } else { high = mid }
            }
            return low
        }

        mutating func issueToken(expiresAt: Date) -> String {
            tokenSerial += 1
            let token = "fake-access-token-\(tokenSerial)"
            tokens[token] = expiresAt
            return token
        }

        mutating func popFault(for endpoint: Endpoint) -> Fault? {
            guard let index = faults.firstIndex(where: { $0.0 == nil || $0.0 == endpoint }) else { return nil }
            return faults.remove(at: index).1
        }

        func isDeleted(_ illustID: Int) -> Bool {
            withheld[illustID] == .deleted
        }

        /// The work as Pixiv serves it now: a withheld one as its kind's placeholder, unless
        /// `asIfVisible`.
        func served(_ illustID: Int, asIfVisible: Bool = false) -> BookmarkedIllustSnapshot {
            let work = works[illustID] ?? BookmarkedIllustSnapshot(id: illustID, title: "")
            if let reason = withheld[illustID], !asIfVisible {
                return BookmarkedIllustSnapshot(
                    id: work.id, title: "", type: .illust, artistID: reason == .deleted ? 0 : work.artistID, artistName: "",
                    tags: [], thumbnailURL: FakePixiv.placeholderImageURL(for: reason), pageCount: 1, width: 100, height: 100,
                    xRestrict: 0, aiType: 0, createDate: work.createDate, vanishReason: VanishReason(reason), totalBookmarks: 0
                )
            }
            var visible = work
            visible.vanishReason = nil
            if visible.thumbnailURL == nil {
                visible.thumbnailURL = "https://i.pximg.net/c/360x360_70/img-master/img/2024/01/01/00/00/00/\(work.id)_p0_square1200.jpg"
            }
            return visible
        }
    }
}
