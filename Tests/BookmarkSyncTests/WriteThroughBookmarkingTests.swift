import BookmarkIndex
import BookmarkIndexTesting
@testable import BookmarkSync
import BookmarkSyncTesting
import Foundation
import Synchronization
import Testing

/// The app's tap changes the index at once; its POST goes through the account's one paced
/// request stream, before the next page of a walk; a refused POST rolls the index back.
@Suite struct WriteThroughBookmarkingTests {
    /// Runs `body` in a task, driving the clock until it returns; `.some(nil)` when it did not
    /// throw, `.some(error)` when it did.
    private func driving(_ harness: Harness, _ body: @escaping @Sendable () async throws -> Void) async -> (any Error)?? {
        await harness.driving {
            do {
                try await body()
                return (any Error)?.none
            } catch {
                return error
            }
        }
    }

    @Test func aTapDuringAWalkGoesBeforeItsNextPage() async throws {
        let harness = try await Harness(latency: 0.5)
        harness.source.add(illusts(1, count: 150), to: .public)
        let engine = harness.engine
        await engine.startAutoSync(for: .public)
        _ = await harness.clock.run(whileBusy: { harness.source.startedRequestCount < 3 || harness.source.requestsInFlight == 0 })
        let inFlight = harness.source.startedRequestCount
        let tapped = illust(9_000, tags: ["new"])
        let error = await driving(harness) { try await engine.bookmark(tapped, in: .public) }
        #expect(error == .some(nil))
        let kinds = harness.source.requests.map(\.kind)
        #expect(kinds[inFlight] == .addBookmark(9_000), "the POST is the first request after the page in flight: \(kinds)")
        #expect(await harness.store.contains(BookmarkKey(illustID: 9_000, restrict: .public)))
        await harness.run()
        // The walk saw the new bookmark on top and kept it; the index matches the server.
        #expect(await harness.indexedIDs(.public) == harness.serverIDs(.public))
        #expect(harness.serverIDs(.public).first == 9_000)
        harness.source.requests.map(\.self).checkPacing()
    }

    @Test func aRefusedBookmarkRollsTheIndexBack() async throws {
        let harness = try await Harness()
        await harness.syncInFull(publicCount: 40)
        let before = await harness.store.state
        harness.source.failNext(BookmarkSyncError(.unauthorized, "sign in again"))
        let engine = harness.engine
        let error = await driving(harness) { try await engine.bookmark(illust(7_000), in: .public) }
        #expect((error ?? nil as (any Error)?).map { ($0 as? BookmarkSyncError)?.code } == .some(.unauthorized))
        let after = await harness.store.state
        #expect(after.allBookmarks(in: .public) == before.allBookmarks(in: .public))
        #expect(ListSyncRecord(after.metadata(for: .public)).bookmarkedInApp == ListSyncRecord(before.metadata(for: .public)).bookmarkedInApp)
        #expect(!harness.serverIDs(.public).contains(7_000))
    }

    @Test func unbookmarkAndItsRollBackKeepTheRowsPlace() async throws {
        let harness = try await Harness()
        await harness.syncInFull(publicCount: 40)
        let engine = harness.engine
        let order = await harness.indexedIDs(.public)
        // Refused: the row is back where it was.
        harness.source.failNext(BookmarkSyncError(.server, "503"))
        let refused = await driving(harness) { try await engine.unbookmark(illustID: 20) }
        #expect((refused ?? nil) != nil)
        #expect(await harness.indexedIDs(.public) == order)
        // Accepted: gone from the index and from Pixiv.
        #expect(await driving(harness) { try await engine.unbookmark(illustID: 20) } == .some(nil))
        #expect(await harness.indexedIDs(.public) == order.filter { $0 != 20 })
        #expect(!harness.serverIDs(.public).contains(20))
    }

    @Test func moveTakesAWorkToTheOtherList() async throws {
        let harness = try await Harness()
        await harness.syncInFull(publicCount: 10)
        let engine = harness.engine
        #expect(await driving(harness) { try await engine.move(illustID: 3, to: .private) } == .some(nil))
        #expect(await harness.indexedIDs(.private) == [3])
        #expect(!(await harness.indexedIDs(.public)).contains(3))
        #expect(harness.serverIDs(.private) == [3])
        let missing = await driving(harness) { try await engine.move(illustID: 99_999, to: .private) }
        #expect((missing ?? nil).map { ($0 as? BookmarkSyncError)?.code } == .some(.other))
    }

    @Test func aTapGoesWithIndexingSwitchedOff() async throws {
        let harness = try await Harness()
        let engine = harness.engine
        await engine.setIndexingEnabled(false)
        #expect(await driving(harness) { try await engine.bookmark(illust(5), in: .private) } == .some(nil))
        #expect(harness.serverIDs(.private) == [5])
        #expect(await harness.indexedIDs(.private) == [5])
    }
}

extension Optional where Wrapped == (any Error)? {
    /// Whether it holds "no error" (`.some(nil)`).
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.some(nil), .some(nil)), (nil, nil): true
        default: false
        }
    }
}
