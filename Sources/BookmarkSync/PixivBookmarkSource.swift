import BookmarkIndex
import Foundation
import PixivAPI

/// The engine's ``BookmarkSource`` for Pixiv: reads a user's illust bookmarks through a
/// `PixivClient`.
///
/// Each call is one request: the first page of a list, the page a `next_url` names (kept
/// verbatim as the page token, so a saved cursor resumes exactly where Pixiv said), or the
/// user's detail for the public total (Pixiv shows no private total, so that one is `nil`
/// without a request). A page is read as the index keeps it: every field checked as
/// `PixivClient.bookmarks(nextURL:)` checks it, values made only of what the index keeps, the
/// rows exactly the `PixivIllust.snapshot` of each of that page's works. `PixivError`s become
/// ``BookmarkSyncError``s the engine branches on:
/// rate limits, 5xx and network failures are retried with backoff, a Cloudflare block after a
/// long wait; auth and undecodable responses are not, and a dead refresh token says to sign in
/// again.
public struct PixivBookmarkSource: BookmarkSource {
    private let client: PixivClient
    private let userID: Int

    /// A source reading the bookmarks of `userID` through `client`.
    ///
    /// After Pixiv rejects the access token and a fresh one is had, the source does not let the
    /// client send the request again itself: it fails with
    /// ``BookmarkSyncError/Code/tokenRefreshed``, and the engine sends it again through its
    /// request budget, paced like any other.
    public init(client: PixivClient, userID: Int) {
        self.client = client.withoutTokenRetry()
        self.userID = userID
    }

    /// The newest page of `restrict`'s list: one `GET /v1/user/bookmarks/illust`.
    ///
    /// - Throws: ``BookmarkSyncError`` translated from the client's `PixivError`.
    public func firstPage(of restrict: Restrict) async throws -> BookmarkPage {
        try await translatingErrors {
            page(try await client.userBookmarkSummaries(userID: userID, restrict: restrict.bookmarkRestrict))
        }
    }

    /// The page at `token`, a `next_url` Pixiv sent (as a previous page's
    /// ``BookmarkPage/nextPage``): one request.
    ///
    /// - Throws: ``BookmarkSyncError``: ``BookmarkSyncError/Code/other`` without a request when
    ///   `token` is not an absolute http(s) URL; else translated from the client's `PixivError`.
    public func nextPage(_ token: String, of restrict: Restrict) async throws -> BookmarkPage {
        // Foundation accepts almost any string as a relative URL; only an absolute http(s) URL
        // can be a `next_url` Pixiv sent.
        guard let url = URL(string: token), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw BookmarkSyncError(.other, "The saved page token is not a URL: \(token.prefix(200)). Refresh the list to start a new walk.")
        }
        return try await translatingErrors { page(try await client.bookmarkSummaries(nextURL: url)) }
    }

    /// The public list's total from the user's detail (one request); `nil` for the private
    /// list, without a request, since Pixiv does not tell it.
    ///
    /// - Throws: ``BookmarkSyncError`` translated from the client's `PixivError`.
    /// `POST /v2/illust/bookmark/add` with the list's restrict.
    public func addBookmark(illustID: Int, restrict: Restrict) async throws {
        try await translatingErrors { try await client.addBookmark(illustID: illustID, restrict: restrict.bookmarkRestrict) }
    }

    /// `POST /v1/illust/bookmark/delete`.
    public func deleteBookmark(illustID: Int) async throws {
        try await translatingErrors { try await client.deleteBookmark(illustID: illustID) }
    }

    public func totalCount(of restrict: Restrict) async throws -> Int? {
        guard restrict == .public else { return nil }
        return try await translatingErrors { try await client.userDetail(userID: userID).profile.totalIllustBookmarksPublic }
    }

    /// A page read as summaries: the client makes no string of what the index drops (most of
    /// a page's bytes are image URLs, of which the index keeps one a work).
    private func page(_ page: PixivSummaryPage) -> BookmarkPage {
        BookmarkPage(
            illusts: page.illusts.map(\.snapshot), nextPage: page.nextURL?.absoluteString,
            nextPageBookmarkID: page.nextURL.flatMap(Self.maxBookmarkID)
        )
    }

    /// The `max_bookmark_id` of a `next_url`, when it has one that is a number.
    static func maxBookmarkID(in url: URL) -> Int? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "max_bookmark_id" }?.value.flatMap { Int($0) }
    }

    private func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PixivError {
            throw BookmarkSyncError(pixivError: error)
        }
    }
}

extension BookmarkSyncError {
    /// The engine's view of a Pixiv client error: rate limit, server, transport and blocked as
    /// themselves (retried); a dead refresh token, a rejected access token and refused client
    /// credentials as ``Code/unauthorized``, with a message that says to sign in again (or to
    /// fix the credentials); an account whose access Pixiv restricts and undecodable as
    /// themselves; anything else as ``Code/other``.
    public init(pixivError error: PixivError) {
        let code: Code
        switch error.code {
        case .rateLimited: code = .rateLimited
        case .server: code = .server
        case .transport: code = .transport
        case .blocked: code = .blocked
        case .tokenRefreshed: code = .tokenRefreshed
        case .invalidRefreshToken, .invalidClient, .unauthorized: code = .unauthorized
        case .accessRestricted: code = .accessRestricted
        case .undecodable: code = .undecodable
        default: code = .other
        }
        self.init(code, error.message, retryAfter: error.retryAfter?.timeInterval, underlying: error)
    }
}
