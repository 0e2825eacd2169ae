import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import PixivAPI

extension FakePixiv {
    /// A bookmark in a list.
    struct Entry: Sendable {
        var illustID: Int
        var bookmarkID: Int
        var tags: [String]
    }

    /// An access token the fake issued: whose it is and until when it is accepted.
    struct AccessGrant: Sendable {
        var userID: Int
        var expiresAt: Date
    }

    /// A fault waiting in the queue, with what it is aimed at (`nil`: anything).
    struct PendingFault: Sendable {
        var userID: Int?
        var endpoint: Endpoint?
        var fault: Fault

        func matches(_ endpoint: Endpoint, caller: Int?) -> Bool {
            (self.endpoint == nil || self.endpoint == endpoint) && (userID == nil || userID == caller)
        }
    }

    /// Everything mutable about the host: its accounts, the tokens it issued, the queued faults,
    /// the request log and the per-address rate limit.
    struct State: Sendable {
        var accounts: [Int: AccountState] = [:]
        /// The user IDs in the order the accounts were added; the first is the one the
        /// single-account API addresses.
        var accountOrder: [Int] = []
        var cursorMeaning = BookmarkCursorMeaning.firstOfNextPage
        var faults: [PendingFault] = []
        var log: [LoggedRequest] = []
        var tokens: [String: AccessGrant] = [:]
        var tokenSerial = 0
        /// Numbers the rotated refresh tokens host-wide, so no two accounts ever share one.
        var rotationSerial = 0
        var oauth = OAuthState()
        /// The per-address rate-limit model (FakePixiv+RateLimit.swift); off until
        /// `limitRequests(_:per:)`.
        var rateLimiter = RateLimiter()
        /// The limit every account gets on its own (`limitRequests(_:per: .account)`), also
        /// given to accounts added later.
        var accountLimit: RateLimit?

        /// Runs `body` on the account of `userID`, which must exist.
        mutating func withAccount<Result>(_ userID: Int, _ body: (inout AccountState) -> Result) -> Result {
            guard accounts[userID] != nil else { preconditionFailure("FakePixiv has no account \(userID); add it with addAccount(userID:…)") }
            return body(&accounts[userID]!)
        }

        mutating func issueToken(for userID: Int, expiresAt: Date) -> String {
            tokenSerial += 1
            let token = "fake-access-token-\(tokenSerial)"
            tokens[token] = AccessGrant(userID: userID, expiresAt: expiresAt)
            return token
        }

        /// The account whose refresh token is `token`, now.
        func account(withRefreshToken token: String) -> Int? {
            accountOrder.first { accounts[$0]?.refreshToken == token }
        }

        mutating func popFault(for endpoint: Endpoint, caller: Int?) -> Fault? {
            guard let index = faults.firstIndex(where: { $0.matches(endpoint, caller: caller) }) else { return nil }
            return faults.remove(at: index).fault
        }
    }

    /// One account: its two lists, the works it can see, its refresh token and its own rate
    /// limit.
    struct AccountState: Sendable {
        let userID: Int
        /// Each list oldest first, so bookmark IDs ascend and appending is O(1).
        var lists: [Restrict: [Entry]] = [.public: [], .private: []]
        var location: [Int: (restrict: Restrict, bookmarkID: Int)] = [:]
        var works: [Int: BookmarkedIllustSnapshot] = [:]
        /// Why each work the account can no longer see is withheld; the one source of truth.
        var withheld: [Int: PixivIllust.InvisibleReason] = [:]
        var nextBookmarkID = 1_000
        var refreshToken: String
        var refreshTokenIsValid = true
        var rotatesRefreshTokens = false
        var refreshCount = 0
        /// The account's own limit (off unless set), beside the host's per-address one.
        var rateLimiter = RateLimiter()

        init(userID: Int, refreshToken: String, limit: RateLimit?) {
            self.userID = userID
            self.refreshToken = refreshToken
            self.rateLimiter = RateLimiter(limit: limit, trips: [])
        }

        mutating func reset() {
            lists = [.public: [], .private: []]
            location = [:]
            works = [:]
            withheld = [:]
        }

        /// Replaces both lists (newest first); a duplicate traps.
        mutating func load(public publicBookmarks: [BookmarkedIllustSnapshot], private privateBookmarks: [BookmarkedIllustSnapshot]) {
            reset()
            for (restrict, illusts) in [(Restrict.public, publicBookmarks), (.private, privateBookmarks)] {
                for illust in illusts.reversed() {
                    precondition(location[illust.id] == nil, "illust \(illust.id) is bookmarked twice")
                    register(illust)
                    append(illust.id, to: restrict, tags: [])
                }
            }
        }

        /// Adds a work to the catalogue; a snapshot that is not visible is withheld for the
        /// reason it carries (see ``FakePixiv/load(public:private:)``). A visible one does not
        /// lift an earlier withholding.
        mutating func register(_ illust: BookmarkedIllustSnapshot) {
            works[illust.id] = illust
            if let reason = illust.vanishReason { withheld[illust.id] = reason.pixivReason }
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
                    xRestrict: 0, aiType: 0, createDate: work.createDate, vanishReason: VanishReason(pixivReason: reason), totalBookmarks: 0
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
