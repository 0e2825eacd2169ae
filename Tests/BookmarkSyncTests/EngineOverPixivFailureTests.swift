import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// The engine over Pixiv when Pixiv says no: rate limits and their `Retry-After`, server errors,
/// slow answers, and access and refresh tokens that stop working.
extension EngineOverPixivTests {
    @Test func aRateLimitCoolsDownAServerErrorBacksOffAndThreeInARowPause() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 10), to: .public)
        await h.syncBoth()
        await h.clock.advance(by: 61)
        let mark = h.pixiv.requests.count
        let recorder = await StatusRecorder(h.engine)

        h.transport.failNext([.tooManyRequests(retryAfter: nil), .serverError(status: 503), .rateLimitBody(status: 403)])
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        await h.run()

        let failed = h.requests(since: mark)
        #expect(failed.map(\.status) == [429, 503, 403])
        #expect(failed.gaps[0] == 300, "Pixiv's 429 without Retry-After: a five-minute cooldown")
        #expect(abs(failed.gaps[1] - 3.6) < dateTolerance, "the 2 s backoff, within the halved rate's 3.6 s")
        let pausedUntil = failed[2].timestamp + 3_600
        let status = await h.engine.currentStatus()
        guard case .paused(let until, let reason) = status.publicList else {
            Issue.record("the list is paused, not \(status.publicList)")
            return
        }
        #expect(until == pausedUntil)
        #expect(reason.code == .rateLimited, "a \"Rate Limit\" 403 is a rate limit")
        let statuses = await recorder.statuses(upTo: status)
        #expect(statuses.contains { $0.publicList == .coolingDown(until: failed[0].timestamp + 300) })
        #expect(statuses.contains { $0.publicList == .backingOff(until: failed[1].timestamp + 2, attempt: 2) })

        // No request during the pause, whatever the user does; after it, an intent runs again.
        await h.clock.advance(by: 1_800)
        #expect(await h.engine.startAutoSync(for: .public) == .paused(until: pausedUntil))
        #expect(await h.engine.refresh(.public) == .paused(until: pausedUntil))
        await h.run()
        await h.clock.advance(to: pausedUntil - 0.001)
        #expect(await h.engine.startAutoSync(for: .public) == .paused(until: pausedUntil))
        #expect(h.requests(since: mark).count == 3)
        await h.clock.advance(to: pausedUntil)
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        await h.run()
        let after = h.requests(since: mark)
        #expect(after.count == 4)
        #expect(after[3].status == 200 && after[3].timestamp >= pausedUntil)
        #expect(await h.engine.currentStatus().publicList.isIdle)
    }

    @Test func aLongerRetryAfterLengthensTheCooldown() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 10), to: .private)
        h.transport.failNext([.tooManyRequests(retryAfter: 600)])
        await h.engine.startAutoSync(for: .private)
        await h.run()
        let log = h.requests()
        #expect(log.map(\.status) == [429, 200])
        #expect(log.gaps == [600])
        #expect(await h.indexed(.private) == h.pixiv.bookmarks(in: .private))
    }

    /// Pixiv's answer for a suspended or deleted account stops the list at once, says what it
    /// means, and sends nothing more: retrying would only add to the account's trouble.
    @Test func aRestrictedAccountStopsTheListWithoutRetrying() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 40), to: .private)
        h.pixiv.enqueue(.accessRestricted, count: 3)
        await h.engine.startAutoSync(for: .private)
        await h.run()
        #expect(h.requests().filter { $0.endpoint == .bookmarks }.map(\.status) == [403])
        guard case .failed(let error) = await h.engine.currentStatus().privateList else {
            Issue.record("the list did not stop: \(await h.engine.currentStatus().privateList)")
            return
        }
        #expect(error.code == .accessRestricted)
        #expect(!error.isRetryable)
        #expect(error.message.contains("suspended or deleted"))
        #expect(await h.indexed(.private).isEmpty)
    }

    @Test func aRetryAfterDateIsReadOnTheClock() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 10), to: .private)
        let retryAt = h.clock.now + 900
        h.pixiv.enqueue(.tooManyRequests(retryAfter: HTTPDate.format(retryAt)))
        await h.engine.startAutoSync(for: .private)
        await h.run()
        let log = h.requests()
        #expect(log.map(\.status) == [429, 200])
        #expect(abs(log[1].timestamp.timeIntervalSince(retryAt)) < dateTolerance, "the retry comes at the date Pixiv named")
    }

    @Test func anAccessTokenExpiringMidWalkIsRefreshedWithoutFailingTheSync() async throws {
        let clock = TestClock()
        let pixiv = FakePixiv(userID: PixivHarness.userID, now: { clock.now }, sleep: clock.sleep(for:))
        let tokens = RefreshTokenProvider(
            refreshToken: pixiv.refreshToken, configuration: PixivClient.Configuration(), transport: pixiv, now: { clock.now }
        )
        let h = try await PixivHarness(clock: clock, pixiv: pixiv, tokens: tokens)
        h.pixiv.add(illusts(1, count: 100), to: .public)
        h.pixiv.enqueue(.accessTokenExpired, for: .bookmarks)
        await h.engine.startAutoSync(for: .public)
        await h.run()

        #expect(h.pixiv.tokenRefreshCount == 2, "the first token, then one refresh after the rejection")
        let endpoints = h.requests().map(\.endpoint)
        #expect(endpoints == [.token, .userDetail, .bookmarks, .token, .bookmarks, .bookmarks, .bookmarks, .bookmarks])
        #expect(await h.engine.currentStatus().publicList.isIdle)
        #expect(await h.indexed(.public) == h.pixiv.bookmarks(in: .public))
    }

    @Test func aSlowResponseHoldsTheStreamAndTheNextRequestIsSpacedFromItsEnd() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 40), to: .private)
        h.pixiv.enqueue(.delay(.milliseconds(2_500)))
        await h.engine.startAutoSync(for: .private)
        await h.run()
        let log = h.requests()
        #expect(log.count == 2)
        #expect(abs(log.gaps[0] - 2.65) < dateTolerance, "2.5 s answering, then 150 ms")
        #expect(await h.indexed(.private) == h.pixiv.bookmarks(in: .private))
    }

    /// A Retry-After shorter than the cooldown does not shorten it (a proxy's `Retry-After: 1`
    /// would send the engine straight back into Pixiv's penalty).
    @Test func aShortRetryAfterDoesNotShortenTheCooldown() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 10), to: .private)
        h.transport.failNext([.serverError(status: 500), .tooManyRequests(retryAfter: 1)])
        await h.engine.startAutoSync(for: .private)
        await h.run()
        let log = h.requests()
        #expect(log.map(\.status) == [500, 429, 200])
        #expect(log.gaps == [1, 300], "\(log.gaps)")
    }

    /// Pixiv's app API answers a rate limit with 403 or 400 and the "Rate Limit" body, without
    /// Retry-After: a five-minute cooldown of the account, then on at the halved rate.
    @Test func aRateLimitBodyUnderFourHundredCoolsDownToo() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 10), to: .public)
        h.transport.failNext([.rateLimitBody(status: 400), .dropConnection])
        await h.engine.startAutoSync(for: .public)
        await h.run()
        let log = h.requests()
        #expect(log.map(\.endpoint) == [.userDetail, .userDetail, .userDetail, .bookmarks])
        #expect(log.map(\.status) == [400, nil, 200, 200])
        #expect(log.gaps.count == 3)
        #expect(zip(log.gaps, [300, 3.6, 3.6]).allSatisfy { abs($0 - $1) < dateTolerance }, "\(log.gaps)")
        #expect(await h.indexed(.public) == h.pixiv.bookmarks(in: .public))
    }

    @Test func anAuthFailureIsNotRetriedAndTheStatusShowsIt() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 10), to: .private)
        h.pixiv.expireAccessTokens()
        await h.engine.startAutoSync(for: .private)
        await h.run()
        #expect(h.requests().map(\.status) == [400], "one request, not retried")
        guard case .failed(let error) = await h.engine.currentStatus().privateList else {
            Issue.record("the failure is shown")
            return
        }
        #expect(error.code == .unauthorized)
        #expect(await h.store.count(in: .private) == 0)
        #expect(await h.engine.isIdle)
    }

    @Test func aDeadRefreshTokenIsNotRetriedAndTheStatusShowsIt() async throws {
        let clock = TestClock()
        let pixiv = FakePixiv(userID: PixivHarness.userID, refreshToken: "r", now: { clock.now }, sleep: clock.sleep(for:))
        let tokens = RefreshTokenProvider(
            refreshToken: "r", configuration: PixivClient.Configuration(), transport: pixiv, now: { clock.now }
        )
        let h = try await PixivHarness(clock: clock, pixiv: pixiv, tokens: tokens)
        h.pixiv.add(illusts(1, count: 10), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(await h.indexed(.public) == h.pixiv.bookmarks(in: .public))

        // The token expires and the refresh token is revoked: a refresh cannot help.
        h.pixiv.revokeRefreshToken()
        await h.clock.advance(by: 2 * 3_600)
        let mark = h.pixiv.requests.count
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(h.requests(since: mark).map(\.endpoint) == [.token], "one attempt at refreshing, no API request")
        guard case .failed(let error) = await h.engine.currentStatus().publicList else {
            Issue.record("the failure is shown")
            return
        }
        #expect(error.code == .unauthorized)
        #expect((error.underlying as? PixivError)?.code == .invalidRefreshToken)
    }
}
