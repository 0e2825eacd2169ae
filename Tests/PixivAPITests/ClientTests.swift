import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI
import Synchronization
import Testing

/// The client against the fake account, each test run both in process and over loopback HTTP
/// through `URLSessionTransport`: the fake must behave identically either way.
@Suite struct ClientTests {
    static let generator = SyntheticBookmarks(tagCount: 200)

    @Test(arguments: Wire.allCases)
    func pagesAThousandBookmarksInBothLists(wire: Wire) async throws {
        let publicWorks = Self.generator.illusts(count: 1_000, seed: 1, firstIllustID: 100_000_000)
        let privateWorks = Self.generator.illusts(count: 1_000, seed: 2, firstIllustID: 200_000_000)
        let harness = try Harness(overHTTP: wire.overHTTP, public: publicWorks, private: privateWorks)
        defer { harness.stop() }

        for restrict in BookmarkRestrict.allCases {
            let (ids, pages) = try await harness.walk(restrict)
            let truth = harness.pixiv.bookmarks(in: restrict == .public ? .public : .private).map(\.id)
            #expect(ids == truth)
            #expect(ids.count == 1_000)
            #expect(pages == 34)
        }
        let log = harness.pixiv.requests.filter { $0.endpoint == .bookmarks }
        #expect(log.count == 68)
        #expect(log.allSatisfy { $0.status == 200 && $0.query["user_id"] == "4242" })
        #expect(log.prefix(34).allSatisfy { $0.query["restrict"] == "public" })
        #expect(log.suffix(34).allSatisfy { $0.query["restrict"] == "private" })
        for list in [log.prefix(34), log.suffix(34)] {
            #expect(list.first?.query["max_bookmark_id"] == nil)
            #expect(list.dropFirst().allSatisfy { $0.query["max_bookmark_id"] != nil })
        }
        #expect(harness.pixiv.tokenRefreshCount == 1)
    }

    @Test(arguments: Wire.allCases)
    func eachErrorCode(wire: Wire) async throws {
        let works = Self.generator.illusts(count: 40, seed: 3)
        let harness = try Harness(overHTTP: wire.overHTTP, public: works)
        defer { harness.stop() }
        let pixiv = harness.pixiv
        let client = harness.client

        func failure(_ fault: FakePixiv.Fault) async -> PixivError? {
            pixiv.enqueue(fault)
            do {
                _ = try await client.userBookmarks(userID: 4242, restrict: .public)
                return nil
            } catch let error as PixivError {
                return error
            } catch {
                Issue.record("not a PixivError: \(error)")
                return nil
            }
        }

        let plain = await failure(.tooManyRequests())
        #expect(plain?.code == .rateLimited)
        #expect(plain?.status == 429)
        #expect(plain?.retryAfter == nil)

        let seconds = await failure(.tooManyRequests(retryAfter: "3"))
        #expect(seconds?.code == .rateLimited)
        #expect(seconds?.retryAfter == .seconds(3))

        let date = await failure(.tooManyRequests(retryAfter: HTTPDate.format(harness.clock.now.addingTimeInterval(90))))
        #expect(date?.code == .rateLimited)
        #expect(date?.retryAfter == .seconds(90))

        for status in [403, 400] {
            let message = await failure(.rateLimitMessage(status: status))
            #expect(message?.code == .rateLimited)
            #expect(message?.status == status)
            #expect(message?.pixivError?.message == "Rate Limit")
        }

        let server = await failure(.serverError(status: 503))
        #expect(server?.code == .server)
        #expect(server?.status == 503)
        #expect(server?.isRetryable == true)

        let malformed = await failure(.malformedJSON)
        #expect(malformed?.code == .undecodable)
        #expect(malformed?.status == 200)
        #expect(malformed?.bodyPrefix?.hasPrefix(#"{"illusts": [,]"#) == true)

        let truncated = await failure(.truncatedBody)
        #expect(truncated?.code == .undecodable)
        #expect(truncated?.isRetryable == false)

        let dropped = await failure(.dropConnection)
        #expect(dropped?.code == .transport)
        #expect(dropped?.underlying != nil)

        let bad = await failure(.response(status: 400, body: Data(Fixtures.badRequestError.utf8)))
        #expect(bad?.code == .badRequest)
        #expect(bad?.pixivError?.reason == "bad_request")

        await #expect(throws: PixivError.self) { try await client.bookmarkDetail(illustID: 1) }
        do {
            _ = try await client.bookmarkDetail(illustID: 1)
        } catch let error as PixivError {
            #expect(error.code == .notFound)
            #expect(error.status == 404)
        }

        // After every failure the service (and the server) still answers.
        let page = try await client.userBookmarks(userID: 4242, restrict: .public)
        #expect(page.illusts.map(\.id) == Array(works.prefix(30).map(\.id)))
        #expect(pixiv.requests.filter { $0.endpoint == .bookmarks }.map(\.status) == [429, 429, 429, 403, 400, 503, 200, 200, nil, 400, 200])
    }

    @Test(arguments: Wire.allCases)
    func aRejectedStaticTokenIsUnauthorized(wire: Wire) async throws {
        let harness = try Harness(overHTTP: wire.overHTTP)
        defer { harness.stop() }
        let client: PixivClient
        if let server = harness.server {
            client = PixivClient(configuration: .local(server.baseURL, timeout: .seconds(10)), transport: URLSessionTransport(), tokens: StaticAccessToken("not-a-token"))
        } else {
            client = PixivClient(transport: harness.pixiv, tokens: StaticAccessToken("not-a-token"))
        }
        do {
            _ = try await client.userBookmarks(userID: 4242, restrict: .public)
            Issue.record("expected a failure")
        } catch let error as PixivError {
            #expect(error.code == .unauthorized)
            #expect(error.status == 400)
            #expect(!error.isRetryable)
            #expect(!"\(error)".contains("not-a-token"))
        }
        // A token the fake issued works.
        let good = PixivClient(
            configuration: client.configuration,
            transport: wire.overHTTP ? URLSessionTransport() : harness.pixiv,
            tokens: StaticAccessToken(harness.pixiv.issueAccessToken())
        )
        #expect(try await good.userBookmarks(userID: 4242, restrict: .public).illusts.isEmpty)
    }

    @Test(arguments: Wire.allCases)
    func tenConcurrentRequestsWithAnExpiredTokenRefreshOnce(wire: Wire) async throws {
        let harness = try Harness(overHTTP: wire.overHTTP, public: Self.generator.illusts(count: 100, seed: 4))
        defer { harness.stop() }
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(harness.pixiv.tokenRefreshCount == 1)

        harness.pixiv.expireAccessTokens()
        let client = harness.client
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask { try await client.userBookmarks(userID: 4242, restrict: .public).illusts.count }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 30, count: 10))
        #expect(harness.pixiv.tokenRefreshCount == 2)
        #expect(await harness.tokens.refreshCount == 2)
        let log = harness.pixiv.requests
        #expect(log.filter { $0.endpoint == .token }.count == 2)
        let rejected = log.filter { $0.endpoint == .bookmarks && $0.status == 400 }.count
        let served = log.filter { $0.endpoint == .bookmarks && $0.status == 200 }.count
        #expect((1...10).contains(rejected))
        #expect(served == 11)
    }

    @Test(arguments: Wire.allCases)
    func anExpiredTokenIsRetriedOnceAfterARefresh(wire: Wire) async throws {
        let harness = try Harness(overHTTP: wire.overHTTP, public: Self.generator.illusts(count: 5, seed: 5))
        defer { harness.stop() }
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        harness.pixiv.enqueue(.accessTokenExpired)
        let page = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(page.illusts.count == 5)
        #expect(harness.pixiv.tokenRefreshCount == 2)
        #expect(harness.pixiv.requests.filter { $0.endpoint == .bookmarks }.map(\.status) == [200, 400, 200])
    }

    /// An OAuth server that rotates refresh tokens accepts only the newest one: the provider
    /// must use it for the next refresh, and hand it to the app to store.
    @Test func aRotatedRefreshTokenIsUsedNextAndHandedToTheApp() async throws {
        let clock = ManualClock()
        let pixiv = FakePixiv(userID: 4242, now: clock.reader)
        pixiv.rotateRefreshTokens()
        let original = pixiv.refreshToken
        let stored = Mutex<[String]>([])
        let tokens = RefreshTokenProvider(
            refreshToken: original, configuration: PixivClient.Configuration(), transport: pixiv, now: clock.reader,
            refreshTokenRotated: { token in stored.withLock { $0.append(token) } }
        )
        let client = PixivClient(configuration: PixivClient.Configuration(), transport: pixiv, tokens: tokens, now: clock.reader)
        for _ in 0..<3 {
            _ = try await client.userBookmarks(userID: 4242, restrict: .public)
            pixiv.expireAccessTokens()
        }
        #expect(pixiv.tokenRefreshCount == 3, "each refresh used the newest token; an older one gets invalid_grant")
        #expect(stored.withLock { $0 } == ["rotated-refresh-token-1", "rotated-refresh-token-2", "rotated-refresh-token-3"])
        #expect(pixiv.refreshToken == "rotated-refresh-token-3")

        // An answer whose access token cannot be read still hands over its new refresh token.
        let broken = Mutex<[String]>([])
        let brokenTransport = StubTransport { _ in
            HTTPResponse(status: 200, headers: [:], body: Data(#"{"refresh_token":"fresh-one","expires_in":"soon"}"#.utf8))
        }
        let brokenTokens = RefreshTokenProvider(
            refreshToken: "old-one", configuration: PixivClient.Configuration(), transport: brokenTransport, now: clock.reader,
            refreshTokenRotated: { token in broken.withLock { $0.append(token) } }
        )
        await #expect(throws: PixivError.self) { _ = try await brokenTokens.accessToken() }
        #expect(broken.withLock { $0 } == ["fresh-one"])

        // A server that answers with the same refresh token does not call back.
        let steady = FakePixiv(userID: 4242, now: clock.reader)
        let calls = Mutex(0)
        let steadyTokens = RefreshTokenProvider(
            refreshToken: steady.refreshToken, configuration: PixivClient.Configuration(), transport: steady, now: clock.reader,
            refreshTokenRotated: { _ in calls.withLock { $0 += 1 } }
        )
        _ = try await steadyTokens.accessToken()
        #expect(steady.tokenRefreshCount == 1)
        #expect(calls.withLock { $0 } == 0)
    }

    @Test(arguments: Wire.allCases)
    func refreshesAheadOfExpiry(wire: Wire) async throws {
        let harness = try Harness(overHTTP: wire.overHTTP)
        defer { harness.stop() }
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        harness.clock.advance(by: 3_000) // 10 minutes before the hour's expiry: still good
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(harness.pixiv.tokenRefreshCount == 1)
        harness.clock.advance(by: 400) // inside the 5-minute margin
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(harness.pixiv.tokenRefreshCount == 2)
        #expect(harness.pixiv.requests.allSatisfy { $0.status == 200 }, "no request was sent with an expired token")
    }

    @Test(arguments: Wire.allCases)
    func aDeadRefreshTokenHasItsOwnCode(wire: Wire) async throws {
        let harness = try Harness(overHTTP: wire.overHTTP)
        defer { harness.stop() }
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        harness.pixiv.revokeRefreshToken()
        harness.pixiv.expireAccessTokens()
        do {
            _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
            Issue.record("expected a failure")
        } catch let error as PixivError {
            #expect(error.code == .invalidRefreshToken)
            #expect(error.status == 400)
            #expect(error.pixivError?.oauthCode == 1508)
            #expect(!error.isRetryable)
            let text = "\(error) \(error.message) \(String(describing: error.bodyPrefix))"
            for secret in [harness.pixiv.refreshToken, ClientCredentials.pixivApp.secret, "fake-access-token"] {
                #expect(!text.contains(secret))
            }
        }
        #expect(!"\(harness.tokens)".contains(harness.pixiv.refreshToken))
    }

    @Test(arguments: Wire.allCases)
    func bookmarkMutationsDetailTagsAndUserDetail(wire: Wire) async throws {
        let works = Self.generator.illusts(count: 45, seed: 6)
        let harness = try Harness(overHTTP: wire.overHTTP, public: Array(works.prefix(40)))
        defer { harness.stop() }
        let client = harness.client
        let pixiv = harness.pixiv
        let newcomer = works[44]
        pixiv.addWork(newcomer)

        try await client.addBookmark(illustID: newcomer.id, restrict: .private, tags: ["お気に入り", "C++ & co"])
        #expect(pixiv.bookmarks(in: .private).map(\.id) == [newcomer.id])
        let detail = try await client.bookmarkDetail(illustID: newcomer.id)
        #expect(detail.isBookmarked)
        #expect(detail.restrict == .private)
        #expect(detail.tags.filter(\.isRegistered).map(\.name) == ["お気に入り", "C++ & co"])
        let tagged = try await client.userBookmarks(userID: 4242, restrict: .private, tag: "C++ & co")
        #expect(tagged.illusts.map(\.id) == [newcomer.id])
        #expect(try await client.userBookmarks(userID: 4242, restrict: .private, tag: "other").illusts.isEmpty)
        let tags = try await client.bookmarkTags(userID: 4242, restrict: .private)
        #expect(Set(tags.tags.map(\.name)) == ["お気に入り", "C++ & co"])
        #expect(tags.nextURL == nil)

        // Re-adding moves the work to the top of the other list, as Pixiv does.
        try await client.addBookmark(illustID: newcomer.id, restrict: .public)
        #expect(pixiv.bookmarks(in: .private).isEmpty)
        #expect(pixiv.bookmarks(in: .public).first?.id == newcomer.id)
        // Re-adding an old bookmark moves it to the top.
        let oldest = works[39].id
        try await client.addBookmark(illustID: oldest, restrict: .public)
        #expect(pixiv.bookmarks(in: .public).prefix(2).map(\.id) == [oldest, newcomer.id])
        #expect(pixiv.bookmarks(in: .public).count == 41)

        #expect(try await client.userDetail(userID: 4242).profile.totalIllustBookmarksPublic == 41)
        try await client.deleteBookmark(illustID: oldest)
        #expect(try await client.userDetail(userID: 4242).profile.totalIllustBookmarksPublic == 40)
        #expect(try await client.bookmarkDetail(illustID: oldest).isBookmarked == false)

        let adds = pixiv.requests.filter { $0.endpoint == .addBookmark }
        #expect(adds.first?.form["restrict"] == "private")
        #expect(adds.first?.form["illust_id"] == String(newcomer.id))
    }

    @Test(arguments: Wire.allCases)
    func hiddenAndDeletedWorksServeAsPixivServesThem(wire: Wire) async throws {
        let works = Self.generator.illusts(count: 3, seed: 7).map { work -> BookmarkedIllustSnapshot in
            var work = work
            work.vanishReason = nil
            return work
        }
        let harness = try Harness(overHTTP: wire.overHTTP, public: works)
        defer { harness.stop() }
        harness.pixiv.hide(illustID: works[0].id)
        harness.pixiv.delete(illustID: works[1].id)
        let page = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(page.illusts.map(\.isVisible) == [false, false, true])
        for work in page.illusts.prefix(2) {
            #expect(work.title.isEmpty)
            #expect(work.tags.isEmpty)
            #expect(work.totalBookmarks == 0)
            #expect(work.imageURLs.squareMedium == FakePixiv.placeholderImageURL)
        }
        #expect(page.illusts[2].title == works[2].title)
        await #expect(throws: PixivError.self) { try await harness.client.bookmarkDetail(illustID: works[1].id) }
    }

    @Test(arguments: Wire.allCases)
    func tokenEndpointFailuresKeepTheirOwnCodes(wire: Wire) async throws {
        let harness = try Harness(overHTTP: wire.overHTTP)
        defer { harness.stop() }
        harness.pixiv.enqueue(.serverError(status: 503), for: .token)
        harness.pixiv.enqueue(.tooManyRequests(retryAfter: "30"), for: .token)
        var codes: [PixivError.Code] = []
        for _ in 0..<2 {
            do {
                _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
            } catch let error as PixivError {
                codes.append(error.code)
                if error.code == .rateLimited { #expect(error.retryAfter == .seconds(30)) }
            }
        }
        #expect(codes == [.server, .rateLimited])
        // The provider is not stuck: the next call refreshes and succeeds.
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(harness.pixiv.tokenRefreshCount == 1)
    }
}

/// A transport that answers every request with what `answer` returns.
private struct StubTransport: HTTPTransport {
    let answer: @Sendable (HTTPRequest) -> HTTPResponse
    init(_ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { self.answer = answer }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { answer(request) }
}
