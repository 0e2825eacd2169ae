import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// `PixivBookmarkSource` against FakePixiv through the real `PixivClient`, in process.
@Suite struct PixivBookmarkSourceTests {
    private static let generator = SyntheticBookmarks(tagCount: 300, invisibleShare: 0.1)

    private struct Fixture {
        let clock = TestClock()
        let pixiv: FakePixiv
        let source: PixivBookmarkSource

        init(public publicWorks: [BookmarkedIllustSnapshot] = [], private privateWorks: [BookmarkedIllustSnapshot] = [],
             tokens: ((FakePixiv) -> any AccessTokenProvider)? = nil) {
            let clock = self.clock
            pixiv = FakePixiv(userID: 77, public: publicWorks, private: privateWorks, now: { clock.now }, sleep: clock.sleep(for:))
            let provider = tokens?(pixiv) ?? StaticAccessToken(pixiv.issueAccessToken(lifetime: nil))
            source = PixivBookmarkSource(client: PixivClient(transport: pixiv, tokens: provider, now: { clock.now }), userID: 77)
        }
    }

    @Test(arguments: Restrict.allCases)
    func pagesAndTokensFollowPixivsTruth(restrict: Restrict) async throws {
        let works = Self.generator.illusts(count: 95, seed: 21)
        let fixture = restrict == .public ? Fixture(public: works) : Fixture(private: works)
        let truth = fixture.pixiv.bookmarks(in: restrict)
        #expect(truth.contains { !$0.isVisible }, "hidden works are part of the walk")

        var pages = [try await fixture.source.firstPage(of: restrict)]
        while let token = pages.last?.nextPage {
            pages.append(try await fixture.source.nextPage(token, of: restrict))
        }
        #expect(pages.map(\.illusts.count) == [30, 30, 30, 5])
        #expect(pages.flatMap(\.illusts) == truth, "the snapshots are Pixiv's illusts, newest bookmark first")

        // Each token is the `next_url` Pixiv sent, and FakePixiv was asked for exactly it.
        let log = fixture.pixiv.requests
        #expect(log.count == 4)
        #expect(log.allSatisfy { $0.endpoint == .bookmarks && $0.status == 200 })
        #expect(log.allSatisfy { $0.query["restrict"] == restrict.rawValue && $0.query["user_id"] == "77" })
        #expect(log[0].query["max_bookmark_id"] == nil)
        for (page, request) in zip(pages, log.dropFirst()) {
            let token = try #require(page.nextPage)
            let components = try #require(URLComponents(string: token))
            #expect(components.path == "/v1/user/bookmarks/illust")
            let maxID = components.queryItems?.first { $0.name == "max_bookmark_id" }?.value
            #expect(maxID != nil && request.query["max_bookmark_id"] == maxID)
        }
    }

    @Test func aTokenStaysValidWhenTheListChangesAboveIt() async throws {
        let works = Self.generator.illusts(count: 60, seed: 22, firstIllustID: 1_000)
        let fixture = Fixture(public: works)
        let first = try await fixture.source.firstPage(of: .public)
        let token = try #require(first.nextPage)
        fixture.pixiv.add([illust(1), illust(2)], to: .public)
        fixture.pixiv.unbookmark(illustID: works[0].id)

        let second = try await fixture.source.nextPage(token, of: .public)
        #expect(second.illusts.map(\.id) == works[30...].map(\.id))
        #expect(second.nextPage == nil)
    }

    @Test func thePublicTotalComesFromUserDetailAndThePrivateOneIsUnknownWithoutARequest() async throws {
        let fixture = Fixture(
            public: Self.generator.illusts(count: 47, seed: 23, firstIllustID: 1_000),
            private: Self.generator.illusts(count: 12, seed: 24, firstIllustID: 9_000)
        )
        #expect(try await fixture.source.totalCount(of: .public) == 47)
        #expect(fixture.pixiv.requests.map(\.endpoint) == [.userDetail])
        #expect(fixture.pixiv.requests.first?.query["user_id"] == "77")

        #expect(try await fixture.source.totalCount(of: .private) == nil)
        #expect(fixture.pixiv.requests.count == 1, "no request for the private total")
    }

    @Test func eachPixivFailureMapsToTheEngineCodeThatDecidesRetrying() async throws {
        let fixture = Fixture(public: Self.generator.illusts(count: 40, seed: 25))
        let source = fixture.source

        func failure(_ fault: FakePixiv.Fault, endpoint: FakePixiv.Endpoint = .bookmarks) async -> BookmarkSyncError? {
            fixture.pixiv.enqueue(fault, for: endpoint)
            return await syncError {
                if endpoint == .userDetail {
                    _ = try await source.totalCount(of: .public)
                } else {
                    _ = try await source.firstPage(of: .public)
                }
            }
        }

        let plain = await failure(.tooManyRequests())
        #expect(plain?.code == .rateLimited)
        #expect(plain?.retryAfter == nil)
        #expect(plain?.isRetryable == true)

        let twenty = await failure(.tooManyRequests(retryAfter: "20"))
        #expect(twenty?.code == .rateLimited)
        #expect(twenty?.retryAfter == 20)

        let dated = await failure(.tooManyRequests(retryAfter: HTTPDate.format(fixture.clock.now + 90)))
        #expect(dated?.retryAfter == 90, "an HTTP-date Retry-After is read against the client's clock")

        for status in [403, 400] {
            let body = await failure(.rateLimitMessage(status: status))
            #expect(body?.code == .rateLimited, "a \"Rate Limit\" body under \(status) is a rate limit")
        }
        let onTotal = await failure(.tooManyRequests(retryAfter: "5"), endpoint: .userDetail)
        #expect(onTotal?.code == .rateLimited)
        #expect(onTotal?.retryAfter == 5)

        for status in [500, 502, 503] {
            let server = await failure(.serverError(status: status))
            #expect(server?.code == .server)
            #expect(server?.isRetryable == true)
        }

        let dropped = await failure(.dropConnection)
        #expect(dropped?.code == .transport)
        #expect(dropped?.isRetryable == true)

        for fault in [FakePixiv.Fault.malformedJSON, .truncatedBody] {
            let garbage = await failure(fault)
            #expect(garbage?.code == .undecodable)
            #expect(garbage?.isRetryable == false)
        }

        let notFound = await failure(.response(status: 404, body: Data(#"{"error":{"user_message":"gone","message":"","reason":""}}"#.utf8)))
        #expect(notFound?.code == .other)
        #expect(notFound?.isRetryable == false)
        let badRequest = await failure(.response(status: 400, body: Data(#"{"error":{"user_message":"","message":"invalid restrict","reason":""}}"#.utf8)))
        #expect(badRequest?.code == .other)

        // The PixivError travels along as the cause.
        let cause = try #require(badRequest?.underlying as? PixivError)
        #expect(cause.code == .badRequest)
        #expect(cause.status == 400)
        #expect(fixture.pixiv.requests.count == 14, "one request per call: the client never retries on its own")
    }

    @Test func aRejectedAccessTokenIsUnauthorized() async throws {
        let fixture = Fixture(public: Self.generator.illusts(count: 5, seed: 26))
        fixture.pixiv.expireAccessTokens()
        let error = await syncError { _ = try await fixture.source.firstPage(of: .public) }
        #expect(error?.code == .unauthorized)
        #expect(error?.isRetryable == false)
        #expect((error?.underlying as? PixivError)?.code == .unauthorized)
    }

    @Test func aDeadRefreshTokenIsUnauthorized() async throws {
        let fixture = Fixture(public: Self.generator.illusts(count: 5, seed: 27)) { pixiv in
            RefreshTokenProvider(
                refreshToken: pixiv.refreshToken, configuration: PixivClient.Configuration(), transport: pixiv
            )
        }
        #expect(try await fixture.source.firstPage(of: .public).illusts.count == 5)
        fixture.pixiv.revokeRefreshToken()
        fixture.pixiv.expireAccessTokens()
        let error = await syncError { _ = try await fixture.source.firstPage(of: .public) }
        #expect(error?.code == .unauthorized)
        #expect((error?.underlying as? PixivError)?.code == .invalidRefreshToken)
    }

    @Test func aTokenThatIsNotAnAbsoluteURLFailsWithoutARequest() async throws {
        let fixture = Fixture()
        for token in ["not a url", "", "/v1/user/bookmarks/illust?max_bookmark_id=5", "file:///etc/passwd"] {
            let error = await syncError { _ = try await fixture.source.nextPage(token, of: .public) }
            #expect(error?.code == .other, "\(token)")
        }
        #expect(fixture.pixiv.requests.isEmpty)
    }

    @Test func everyPixivCodeMapsAndRetryAfterKeepsFractions() {
        let cases: [(PixivError.Code, BookmarkSyncError.Code)] = [
            (.rateLimited, .rateLimited), (.server, .server), (.transport, .transport),
            (.unauthorized, .unauthorized), (.invalidRefreshToken, .unauthorized), (.invalidClient, .unauthorized),
            (.blocked, .blocked), (.tokenRefreshed, .tokenRefreshed), (.expiredLoginCode, .other), (.invalidLoginCode, .other),
            (.undecodable, .undecodable), (.notFound, .other), (.badRequest, .other),
        ]
        for (pixivCode, expected) in cases {
            let pixivError = PixivError(pixivCode, "message for \(pixivCode)")
            let mapped = BookmarkSyncError(pixivError: pixivError)
            #expect(mapped.code == expected, "\(pixivCode)")
            #expect(mapped.isRetryable == pixivError.isRetryable, "\(pixivCode) is retried by both or neither")
            #expect(mapped.message == pixivError.message)
        }
        let fractional = BookmarkSyncError(pixivError: PixivError(.rateLimited, "slow down", retryAfter: .milliseconds(1_500)))
        #expect(fractional.retryAfter == 1.5)
    }
}
