import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import PixivAPI
import Synchronization

/// An in-memory Pixiv that answers Pixiv's app API for one account or many, as one host: the
/// bookmark lists, adding and removing bookmarks, bookmark detail and tags, user detail and the
/// OAuth token endpoint.
///
/// It *is* an ``HTTPTransport``, so a test plugs it straight into `PixivClient` without sockets;
/// ``LoopbackServer`` serves the very same object over real HTTP, and it behaves identically
/// either way.
///
/// - Accounts: the initializer creates the first account; ``addAccount(userID:public:private:refreshToken:)``
///   adds more, and ``account(_:)`` addresses one (``Account``). The single-account API
///   (``bookmark(_:restrict:tags:)``, ``issueAccessToken(lifetime:)``, ``refreshToken`` …)
///   addresses the first account. Each account has its own catalogue of works.
/// - Routing as Pixiv: a request is *for* the account whose access token it carries (at the
///   token endpoint: whose refresh token or login code). `user_id` names whose list or detail is
///   read: the caller's own lists both, another user's public list and tags, never another
///   user's private ones (refused with HTTP 403 and Pixiv's error object). Adding, removing and
///   bookmark detail are the caller's.
/// - Pagination as Pixiv: 30 per page, newest bookmark first; `next_url` carries
///   `max_bookmark_id`, the bookmark ID of the first work of the next page (or of this page's
///   last, ``cursorMeaning``).
/// - JSON as Pixiv writes it: the app API's answers escape every `/` as `\/`, every character
///   outside ASCII as `\u` and four lower-case hex digits, and `&`, `<`, `>` as `\u0026`,
///   `\u003C`, `\u003E` (as answers recorded from Pixiv show), so that a client is tried on
///   what every real page holds.
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
/// - Faults queued with ``enqueue(_:for:count:)`` are applied to the next matching requests of
///   any account; ``Account/enqueue(_:for:count:)`` aims one at one account's requests.
/// - An optional rate limit (``limitRequests(_:per:)``, ``RateLimit``) answers Pixiv's 403
///   "Rate Limit" for a penalty after too many app-API requests within a sliding window: per
///   address (every request the host receives, whichever account) and per account.
/// - Every request is logged (``requests``) with a timestamp from `now` and the account it was
///   for (never its token).
///
/// Thread-safe: all state is behind one `Mutex`; requests may arrive from many tasks at once.
/// A bookmark page is gathered under the lock and written as JSON outside it.
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

    /// The first account's user ID: the account the single-account API addresses.
    public let userID: Int
    /// How long an access token from the token endpoint lives, for every account.
    public let accessTokenLifetime: Duration

    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void
    let state: Mutex<State>

    /// Creates the host with its first account; add more with
    /// ``addAccount(userID:public:private:refreshToken:)``.
    ///
    /// - Parameters:
    ///   - userID: the first account's user ID.
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
        self.state = Mutex(State())
        addAccount(userID: userID, public: publicBookmarks, private: privateBookmarks, refreshToken: refreshToken)
    }

    /// What `max_bookmark_id` in a `next_url` names, for every account;
    /// ``BookmarkCursorMeaning/firstOfNextPage`` unless set (Pixiv does not document which it is).
    public var cursorMeaning: BookmarkCursorMeaning {
        get { state.withLock { $0.cursorMeaning } }
        set { state.withLock { $0.cursorMeaning = newValue } }
    }

    // MARK: Accounts

    /// Adds an account to the host and returns it.
    ///
    /// - Parameters:
    ///   - userID: its user ID, not yet an account's.
    ///   - public: its public bookmarks, newest first.
    ///   - private: its private bookmarks, newest first. An illust must not be in both lists.
    ///   - refreshToken: the refresh token the token endpoint accepts for it; not another
    ///     account's. By default `fake-refresh-token-<userID>`.
    /// - Returns: the account, to address its bookmarks, faults and tokens.
    /// - Precondition: the user ID and the refresh token are new to the host.
    @discardableResult
    public func addAccount(
        userID: Int,
        public publicBookmarks: [BookmarkedIllustSnapshot] = [],
        private privateBookmarks: [BookmarkedIllustSnapshot] = [],
        refreshToken: String? = nil
    ) -> Account {
        let refreshToken = refreshToken ?? "fake-refresh-token-\(userID)"
        state.withLock { state in
            precondition(state.accounts[userID] == nil, "FakePixiv already has an account \(userID)")
            precondition(state.account(withRefreshToken: refreshToken) == nil, "another account already has that refresh token")
            var account = AccountState(userID: userID, refreshToken: refreshToken, limit: state.accountLimit)
            account.load(public: publicBookmarks, private: privateBookmarks)
            state.accounts[userID] = account
            state.accountOrder.append(userID)
        }
        return Account(host: self, userID: userID)
    }

    /// The account of `userID`, to address its bookmarks, faults, tokens and log.
    ///
    /// - Precondition: the host has that account (the first one, or one added with
    ///   ``addAccount(userID:public:private:refreshToken:)``).
    public func account(_ userID: Int) -> Account {
        precondition(state.withLock { $0.accounts[userID] != nil }, "FakePixiv has no account \(userID)")
        return Account(host: self, userID: userID)
    }

    /// Every account, in the order they were added (the first is the initializer's).
    public var accounts: [Account] {
        state.withLock { $0.accountOrder }.map { Account(host: self, userID: $0) }
    }

    /// The first account: the one the single-account API addresses.
    public var firstAccount: Account { Account(host: self, userID: userID) }

    // MARK: Faults and the log

    /// Queues `fault` for the next `count` requests to `endpoint` (`nil`: to any endpoint), of
    /// any account or none. Faults apply in the order queued; ``Account/enqueue(_:for:count:)``
    /// queues one for a single account's requests.
    public func enqueue(_ fault: Fault, for endpoint: Endpoint? = .bookmarks, count: Int = 1) {
        state.withLock { state in
            for _ in 0..<count { state.faults.append(PendingFault(userID: nil, endpoint: endpoint, fault: fault)) }
        }
    }

    /// Drops every fault still queued, for every account.
    public func clearFaults() {
        state.withLock { $0.faults.removeAll() }
    }

    /// Every request received so far, oldest first, of every account; each names the account it
    /// was for (``LoggedRequest/userID``).
    public var requests: [LoggedRequest] {
        state.withLock { $0.log }
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
