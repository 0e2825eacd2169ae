import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// Pixiv's real failure answers, through the engine: what a user is told, and what is retried.
@Suite struct PixivDialectEngineTests {
    /// A harness whose client refreshes its tokens at FakePixiv's token endpoint.
    func refreshingHarness(refreshToken: String = "r") async throws -> PixivHarness {
        let clock = TestClock()
        let pixiv = FakePixiv(userID: PixivHarness.userID, refreshToken: refreshToken, now: { clock.now }, sleep: clock.sleep(for:))
        let tokens = RefreshTokenProvider(refreshToken: refreshToken, transport: pixiv, now: { clock.now })
        return try await PixivHarness(clock: clock, pixiv: pixiv, tokens: tokens)
    }

    /// A dead refresh token, in Pixiv's current answer and its older one without the OAuth
    /// word, stops the sync as unauthorized with the advice to sign in again: never `other`.
    @Test(arguments: [
        #"{"has_error":true,"errors":{"system":{"message":"Invalid refresh token","code":1508}},"error":"invalid_grant"}"#,
        #"{"has_error":true,"errors":{"system":{"message":"Invalid refresh token","code":1508}}}"#,
    ])
    func aDeadRefreshTokenTellsTheUserToSignInAgain(body: String) async throws {
        let h = try await refreshingHarness()
        h.pixiv.add(illusts(1, count: 10), to: .public)
        h.pixiv.enqueue(.response(status: 400, body: Data(body.utf8)), for: .token)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(h.requests().map(\.endpoint) == [.token], "one refresh attempt, no retry")
        guard case .failed(let error) = await h.engine.currentStatus().publicList else {
            Issue.record("the failure is shown")
            return
        }
        #expect(error.code == .unauthorized)
        #expect(!error.isRetryable)
        #expect(error.message.contains("sign in again (with the bookmarks tool: bookmarks login)"), "\(error.message)")
        #expect((error.underlying as? PixivError)?.code == .invalidRefreshToken)
    }

    @Test func wrongClientCredentialsStopAsUnauthorizedSayingWhich() async throws {
        let h = try await refreshingHarness()
        h.pixiv.requireClientCredentials(ClientCredentials(id: "the-real-one", secret: "s"))
        await h.engine.startAutoSync(for: .public)
        await h.run()
        guard case .failed(let error) = await h.engine.currentStatus().publicList else {
            Issue.record("the failure is shown")
            return
        }
        #expect(error.code == .unauthorized)
        #expect(error.message.contains("client credentials"))
    }

    /// A Cloudflare page is a block: the account waits it out (an hour by default), the list
    /// keeps its cursor, and the walk resumes from there when the user asks again.
    @Test func aCloudflareBlockIsWaitedOutAndTheWalkResumes() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 100), to: .public)
        let mark = h.pixiv.requests.count
        let first = h.transport.startedCount
        h.transport.setFaultRule { number, _ in number == first + 2 ? .cloudflare : nil }
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let blockedAt = h.clock.now
        guard case .paused(let until, let reason) = await h.engine.currentStatus().publicList else {
            Issue.record("the block pauses the list, got \(await h.engine.currentStatus().publicList)")
            return
        }
        #expect(reason.code == .blocked && reason.isRetryable)
        #expect(abs(until.timeIntervalSince(blockedAt) - SyncConfiguration().blockedWait) < 1)
        #expect(h.requests(since: mark).map(\.status) == [200, 200, 403], "no quick retry into the block")
        #expect(await h.store.metadata(for: .public).fullWalkPosition != nil)

        await h.clock.advance(to: until)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(await h.engine.currentStatus().publicList.isIdle)
        #expect(await h.indexed(.public) == h.pixiv.bookmarks(in: .public))
        let resumed = h.requests(since: mark).dropFirst(3).filter { $0.endpoint == .bookmarks }
        #expect(resumed.first?.query["max_bookmark_id"] != nil, "the walk went on from its cursor")
        #expect(resumed.count == 3, "pages 2 to 4 of 100 bookmarks, none again")
    }
}
