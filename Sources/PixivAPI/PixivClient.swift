import Foundation

/// A client of Pixiv's app API for a user's illust bookmarks.
///
/// A `Sendable` value: share one between tasks. Every method sends one request (two when the
/// access token was rejected: it is refreshed and the request retried once) and throws
/// ``PixivError`` when it fails; cancelling the calling task cancels the request and throws
/// `CancellationError`. The client never retries on its own otherwise: pacing and backoff are
/// the caller's (see ``PixivError/isRetryable`` and ``PixivError/retryAfter``), except the one
/// retry after a refreshed token, spaced ``Configuration/retrySpacing`` from the rejected request.
public struct PixivClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: Configuration
    private let transport: any HTTPTransport
    private let tokens: any AccessTokenProvider
    private let now: @Sendable () -> Date
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - configuration: hosts, headers and timeout.
    ///   - transport: how requests travel (``URLSessionTransport`` for the real network).
    ///   - tokens: where access tokens come from.
    ///   - now: the clock against which an HTTP-date `Retry-After` is turned into a delay, and
    ///     the retry after a refreshed token is spaced.
    ///   - sleep: how the client waits out ``Configuration/retrySpacing``; inject a test clock's.
    public init(
        configuration: Configuration = Configuration(),
        transport: any HTTPTransport = URLSessionTransport(),
        tokens: any AccessTokenProvider,
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.tokens = tokens
        self.now = now
        self.sleep = sleep
    }

    // MARK: Bookmarks

    /// The first page of a user's illust bookmarks in one list, newest bookmark first (30 per
    /// page). `tag` narrows to bookmarks carrying that bookmark tag of the user's.
    public func userBookmarks(userID: Int, restrict: BookmarkRestrict, tag: String? = nil) async throws -> BookmarksPage {
        try await decode(BookmarksPage.self, from: send(userBookmarksRequest(userID: userID, restrict: restrict, tag: tag)))
    }

    /// `GET /v1/user/bookmarks/illust` for a user's list.
    func userBookmarksRequest(userID: Int, restrict: BookmarkRestrict, tag: String? = nil) throws -> HTTPRequest {
        var query = [("user_id", String(userID)), ("restrict", restrict.rawValue)]
        if let tag { query.append(("tag", tag)) }
        return HTTPRequest(method: "GET", url: try endpoint("v1/user/bookmarks/illust", query: FormEncoding.encode(query)))
    }

    /// The page at `nextURL`, exactly as a previous page's ``BookmarksPage/nextURL`` gave it.
    public func bookmarks(nextURL: URL) async throws -> BookmarksPage {
        try await decode(BookmarksPage.self, from: send(HTTPRequest(method: "GET", url: checkedNextURL(nextURL))))
    }

    /// Bookmarks a work in `restrict`, with the user's bookmark `tags`. Bookmarking a work
    /// already bookmarked moves it to the top of `restrict`.
    public func addBookmark(illustID: Int, restrict: BookmarkRestrict, tags: [String] = []) async throws {
        var form = [("illust_id", String(illustID)), ("restrict", restrict.rawValue)]
        form += tags.map { ("tags[]", $0) }
        _ = try await post("v2/illust/bookmark/add", form: form)
    }

    /// Removes a work from the user's bookmarks, whichever list it is in.
    public func deleteBookmark(illustID: Int) async throws {
        _ = try await post("v1/illust/bookmark/delete", form: [("illust_id", String(illustID))])
    }

    /// Whether the user has bookmarked a work, in which list, and with which bookmark tags.
    public func bookmarkDetail(illustID: Int) async throws -> BookmarkDetail {
        try await get("v2/illust/bookmark/detail", query: [("illust_id", String(illustID))], as: BookmarkDetailEnvelope.self).bookmark_detail
    }

    /// The first page of the user's own bookmark tags in one list, with their counts.
    public func bookmarkTags(userID: Int, restrict: BookmarkRestrict) async throws -> BookmarkTagsPage {
        try await get("v1/user/bookmark-tags/illust", query: [("user_id", String(userID)), ("restrict", restrict.rawValue)], as: BookmarkTagsPage.self)
    }

    /// The bookmark-tags page at `nextURL`, as a previous page gave it.
    public func bookmarkTags(nextURL: URL) async throws -> BookmarkTagsPage {
        try await decode(BookmarkTagsPage.self, from: send(HTTPRequest(method: "GET", url: checkedNextURL(nextURL))))
    }

    /// `url`, if it points at the configured API host; the access token goes nowhere else, so a
    /// tampered or corrupted saved cursor cannot send it to another server.
    func checkedNextURL(_ url: URL) throws -> URL {
        let base = configuration.baseURL
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        guard url.scheme?.lowercased() == base.scheme?.lowercased(),
              url.host?.lowercased() == base.host?.lowercased(),
              port(url) == port(base) else {
            throw PixivError(
                .badRequest,
                "Refusing to follow a next URL on another scheme, host or port than the API's (\(base.scheme ?? "")://\(base.host ?? ""):\(port(base).map(String.init) ?? "")): \(url.absoluteString.prefix(200))"
            )
        }
        return url
    }

    /// A user's detail; its profile holds the public illust-bookmark total.
    public func userDetail(userID: Int) async throws -> UserDetail {
        try await get("v1/user/detail", query: [("user_id", String(userID)), ("filter", "for_ios")], as: UserDetail.self)
    }

    /// This client, but throwing ``PixivError/Code/tokenRefreshed`` where it would send a
    /// request again after refreshing its token, for a caller that paces every request.
    package func withoutTokenRetry() -> PixivClient {
        var configuration = configuration
        configuration.retriesAfterTokenRefresh = false
        return PixivClient(configuration: configuration, transport: transport, tokens: tokens, now: now, sleep: sleep)
    }

    // MARK: Plumbing

    private func get<T: PixivJSONReadable>(_ path: String, query: [(String, String)], as type: T.Type) async throws -> T {
        let url = try endpoint(path, query: FormEncoding.encode(query))
        return try await decode(type, from: send(HTTPRequest(method: "GET", url: url)))
    }

    private func post(_ path: String, form: [(String, String)]) async throws -> HTTPResponse {
        var request = HTTPRequest(method: "POST", url: try endpoint(path, query: nil), body: Data(FormEncoding.encode(form).utf8))
        request.headers["Content-Type"] = "application/x-www-form-urlencoded"
        return try await send(request)
    }

    private func endpoint(_ path: String, query: String?) throws -> URL {
        var text = configuration.baseURL.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        text += path
        if let query, !query.isEmpty { text += "?" + query }
        guard let url = URL(string: text) else {
            throw PixivError(.badRequest, "cannot form a URL for \(path) under the configured base URL")
        }
        return url
    }

    /// Sends with the app headers and a bearer token; on Pixiv's OAuth rejection, invalidates
    /// the token and retries once with a fresh one. Returns only 2xx responses.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        request.timeout = configuration.timeout
        for field in configuration.appHeaders where request.headers[field.name] == nil {
            request.headers[field.name] = field.value
        }
        let token = try await tokens.accessToken()
        var response = try await transmit(request, token: token)
        if isTokenRejection(response) {
            let rejectedAt = now()
            await tokens.invalidate(token)
            let fresh = try await tokens.accessToken()
            if fresh != token {
                guard configuration.retriesAfterTokenRefresh else {
                    throw PixivError(
                        .tokenRefreshed, "Pixiv rejected the access token and a fresh one is ready; send the request again",
                        status: response.status
                    )
                }
                // The retry is a request like any other: spaced from the one Pixiv rejected.
                let elapsed = now().timeIntervalSince(rejectedAt)
                let waited = elapsed < configuration.retrySpacing.timeInterval ? Duration.milliseconds(Int64(max(0, elapsed) * 1000)) : configuration.retrySpacing
                if waited < configuration.retrySpacing { try await sleep(configuration.retrySpacing - waited) }
                response = try await transmit(request, token: fresh)
            }
        }
        guard (200...299).contains(response.status) else {
            throw PixivError.classify(response, now: now())
        }
        return response
    }

    private func transmit(_ request: HTTPRequest, token: String) async throws -> HTTPResponse {
        var request = request
        request.headers["Authorization"] = "Bearer " + token
        do {
            return try await transport.send(request)
        } catch let error as CancellationError {
            throw error
        } catch let error as PixivError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw PixivError(.transport, "no response from Pixiv for \(request.method) \(request.url.path)", underlying: error)
        }
    }

    private func isTokenRejection(_ response: HTTPResponse) -> Bool {
        guard response.status == 400 || response.status == 401 else { return false }
        if response.status == 401 { return true }
        return PixivErrorBody(json: response.body).map(PixivError.isOAuthFailure) ?? false
    }

    private func decode<T: PixivJSONReadable>(_ type: T.Type, from response: HTTPResponse) throws -> T {
        try reading(response, as: T.self) { try PixivJSON.decode(type, from: $0) }
    }

    /// What `read` reads from `response`'s body; what it throws becomes an undecodable
    /// ``PixivError`` that names the `expected` model.
    func reading<T>(_ response: HTTPResponse, as expected: Any.Type, _ read: (Data) throws -> T) throws -> T {
        do {
            return try read(response.body)
        } catch {
            throw PixivError.undecodable(response, what: "\(expected)", underlying: error)
        }
    }
}
