import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
@testable import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// What the engine keeps of a list outlives the process: a cooldown, the learned pace, a
/// delta's position; and a store that schema-1 code wrote goes on where it stopped.
@Suite struct PersistedStateTests {
    /// A process started again during a cooldown sends nothing until it ends, and goes on at
    /// the learned pace, without a burst.
    @Test func aRelaunchWaitsOutACooldownAndKeepsTheLearnedPace() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 900), to: .public)
        let first = h.transport.startedCount
        h.transport.setFaultRule { number, _ in number == first + 3 ? .rateLimitBody(status: 403) : nil }
        await h.engine.startAutoSync(for: .public)
        // Let the trip happen and the engine take it in (it cools down), then "quit" in the
        // middle of the cooldown.
        _ = await h.clock.run(whileBusy: {
            if case .coolingDown = await h.engine.currentStatus().publicList { return false }
            return true
        })
        let trip = try #require(h.requests().first { $0.status == 403 }).timestamp
        await shutDown(h.engine, on: h.clock)

        let relaunched = try await h.restarted()
        await h.clock.advance(to: trip + 100)
        let mark = h.pixiv.requests.count
        await relaunched.engine.startAutoSync(for: .public)
        #expect(await relaunched.engine.currentStatus().publicList == .coolingDown(until: trip + 300))
        await relaunched.run()
        let after = h.requests(since: mark)
        let firstAfter = try #require(after.first).timestamp
        #expect(firstAfter >= trip + 300, "nothing before the cooldown's end: \(firstAfter.timeIntervalSince(trip)) s")
        // The learned pace, not a burst at 150 ms: the halved rate (3.6 s), recovered after the
        // cooldown at most to the learned cap (2.25 s).
        #expect(after.gaps.prefix(5).allSatisfy { $0 >= 2.25 - dateTolerance }, "\(after.gaps.prefix(5))")
        #expect(await relaunched.indexed(.public) == h.pixiv.bookmarks(in: .public))
    }

    /// A trip is written to both lists' records; the later copy is the account's, and once the
    /// pace has recovered the other list's copy is cleared too, so no relaunch takes it back.
    @Test func theLearnedPaceIsTheAccountsNotAList() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 30 * 40), to: .private)
        let first = h.transport.startedCount
        h.transport.setFaultRule { number, _ in number == first + 2 ? .rateLimitBody(status: 403) : nil }
        await h.engine.startAutoSync(for: .private)
        await h.run()
        let trip = try #require(h.requests().first { $0.status == 403 }).timestamp
        // The list that did not sync holds the account's cooldown, as written at the trip.
        #expect(await h.store.metadata(for: .public).record.cooldownUntil == trip + 300, "the other list got the trip too")
        // 40 pages after the cooldown: the pace recovers to the cap and, once the cap expires
        // an hour later, to the configured rate; then both copies are gone.
        await h.clock.advance(by: 3 * 3_600)
        h.pixiv.add(illusts(5_000, count: 30 * 40), to: .private)
        await h.engine.refresh(.private)
        await h.run()
        #expect(await h.store.metadata(for: .private).record.cooldownUntil == nil)
        let publicRecord = ListSyncRecord(await h.store.metadata(for: .public))
        #expect(publicRecord.pacing == nil, "the other list's copy is cleared: \(String(describing: publicRecord.pacing))")
    }

    /// A delta interrupted by failures goes on from the page it stopped at after a restart.
    @Test func aDeltaResumesAfterARestart() async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 60), to: .public)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        h.pixiv.add(illusts(1_000, count: 75), to: .public)         // three pages of new works
        await h.clock.advance(by: 3_600)
        let first = h.transport.startedCount
        h.transport.setFaultRule { number, _ in number > first ? .serverError(status: 502) : nil }
        await h.engine.startAutoSync(for: .public)
        await h.run()
        guard case .paused(let until, _) = await h.engine.currentStatus().publicList else {
            Issue.record("the delta pauses after page 1")
            return
        }
        h.transport.setFaultRule(nil)
        let relaunched = try await h.restarted()
        await h.clock.advance(to: until)
        let mark = h.pixiv.requests.count
        await relaunched.engine.startAutoSync(for: .public)
        await relaunched.run()
        let resumed = h.requests(since: mark)
        #expect(resumed.first?.query["max_bookmark_id"] != nil, "page 2, not page 1: \(resumed.map(\.query))")
        #expect(await relaunched.indexedIDs(.public) == h.pixiv.ids(in: .public))
    }

    /// The schema-1 store of the migration fixture: its private list was paused in the middle
    /// of its first walk. After the upgrade the pause still holds, and the walk then goes on
    /// from the cursor schema-1 code saved.
    @Test func aSchema1StoreGoesOnWhereItStopped() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("BookmarkIndexTests/Fixtures/schema1-account")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema1-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in [JournalStorage.journalFileName, JournalStorage.checkpointFileName] {
            try FileManager.default.copyItem(at: fixture.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let store = try await BookmarksIndexStore.open(directory: directory)
        let record = ListSyncRecord(await store.metadata(for: .private))
        let cursor = try #require(record.fullWalkPosition)
        let pause = try #require(record.pause)
        #expect(cursor.nextPage.contains("max_bookmark_id=1210") && cursor.pagesFetched == 1 && !cursor.placesRowsAbove)
        #expect(pause.code == "server")
        #expect(ListSyncRecord(await store.metadata(for: .public)).unbookmarkedInApp.keys.contains(110_001_002))

        let clock = TestClock(now: pause.until - 60)
        let pixiv = FakePixiv(userID: 4242, now: { clock.now }, sleep: clock.sleep(for:))
        pixiv.add(illusts(1, count: 40), to: .private)
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken(lifetime: nil)), now: { clock.now }, sleep: clock.sleep(for:))
        let engine = BookmarkSyncEngine(store: store, source: PixivBookmarkSource(client: client, userID: 4242), clock: clock)
        #expect(await engine.startAutoSync(for: .private) == .paused(until: pause.until))
        await clock.advance(to: pause.until)
        #expect(await engine.startAutoSync(for: .private) == .started)
        await clock.runUntilIdle(engine)
        let pages = pixiv.requests.filter { $0.endpoint == .bookmarks }
        #expect(pages.first?.query["max_bookmark_id"] == "1210", "the walk resumed from the saved cursor")
        try await store.close()
    }
}
