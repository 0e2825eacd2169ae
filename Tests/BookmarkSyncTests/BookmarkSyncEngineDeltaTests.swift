import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import Foundation
import Testing

/// Deltas that are cut short or meet a work bookmarked again: the index still ends in Pixiv's
/// order.
extension BookmarkSyncEngineTests {
    /// A delta that stops after writing its first page (here: paused after repeated failures)
    /// must not leave the works below that page out: the next delta does not take the rows the
    /// interrupted one wrote for known ground.
    @Test func aDeltaInterruptedAfterItsFirstPageIsCompletedByTheNextDelta() async throws {
        let h = try await Harness()
        await h.syncInFull(publicCount: 50)
        h.source.add(illusts(1_000, count: 65), to: .public)
        await h.clock.advance(by: 120)

        // Page 1 arrives; then every request fails until the list pauses.
        let pages = Counter()
        h.source.setFaultRule { kind, _ in
            kind == .firstPage && pages.next() == 0 ? nil : BookmarkSyncError(.server, "503")
        }
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(await h.store.count(in: .public) == 80, "page 1's 30 new rows were written")
        guard case .paused = await h.engine.currentStatus().publicList else {
            Issue.record("expected the list to pause")
            return
        }

        h.source.setFaultRule(nil)
        await h.clock.advance(by: 3_601)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public), "all 65 new works, in Pixiv's order")
    }

    /// A work bookmarked in the app sits on top of Pixiv's list too; it is not known ground for
    /// the works bookmarked on the web before it, which no sync has fetched yet.
    @Test func anInAppBookmarkDoesNotEndADeltaEarly() async throws {
        let h = try await Harness()
        await h.syncInFull(publicCount: 50)
        h.source.add(illusts(1_000, count: 40), to: .public)
        let inApp = illust(9_000)
        h.source.add([inApp], to: .public)
        try await h.engine.recordBookmark(inApp, restrict: .public)
        await h.clock.advance(by: 120)

        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
    }
}

extension BookmarkSyncEngineTests {
    /// A work bookmarked again on the web moves to the top of Pixiv's list; a delta puts it
    /// there too, with or without new works around it, in two requests: the changed first
    /// page, then the next page, whose cursor proves known ground.
    @Test(arguments: [0, 2], BookmarkCursorMeaning.allCases)
    func aWorkBookmarkedAgainOnTheWebMovesToTheTop(newWorks: Int, meaning: BookmarkCursorMeaning) async throws {
        let h = try await Harness()
        h.source.cursorMeaning = meaning
        await h.syncInFull(publicCount: 50)
        h.source.add([illust(7)], to: .public)  // again: now the newest
        h.source.add(illusts(1_000, count: newWorks), to: .public)
        await h.clock.advance(by: 120)
        h.source.clearLog()

        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(h.source.requests.count == 2)
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public))
    }
}
