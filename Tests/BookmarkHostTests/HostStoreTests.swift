import BookmarkHost
import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import Testing

/// Stores open on first use and close again when idle, least recently used first; an account
/// whose store cannot open reports it and the others go on.
@Suite struct HostStoreTests {
    @Test func storesOpenOnFirstUseAndTheLeastRecentlyUsedIdleOneCloses() async throws {
        let harness = try await HostHarness(accounts: 5, configuration: .init(maximumOpenStores: 2, egress: .init(seed: 1)))
        let host = harness.host
        let log = EventLog(host.events())
        #expect(await host.openStoreCount == 0, "adding opens nothing")
        for id in harness.ids {
            try await host.startAutoSync(id, for: .public)
            await harness.run()
        }
        #expect(await host.openStoreCount == 2)
        // Closed, each evicted store kept its index: reopened, it holds the synced list.
        for id in harness.ids {
            #expect(try await harness.indexedIDs(id) == harness.serverIDs(id))
        }
        #expect(await host.openStoreCount == 2)
        let opened = await log.wait(for: 10) { if case .storeOpened = $0.kind { true } else { false } }
        let evicted = await log.wait(for: 8) { if case .storeClosed(evicted: true) = $0.kind { true } else { false } }
        // 5 opens for the syncs, then the 3 evicted among the first 3 reopened, and so on.
        #expect(opened.count >= 5)
        #expect(evicted.count == opened.count - 2)
        #expect(Set(log.all.compactMap(\.account)) == Set(harness.ids))
    }

    @Test func aStoreInUseIsNotEvictedUntilItsCallerReturns() async throws {
        let harness = try await HostHarness(accounts: 2, configuration: .init(maximumOpenStores: 1, egress: .init(seed: 1)))
        let host = harness.host
        let (first, second) = (harness.ids[0], harness.ids[1])
        let counts = try await host.withStore(first) { store in
            // Opening the second while the first is in use: both stay open for now.
            _ = try await host.status(of: second)
            let open = await host.openStoreCount
            // The first store still answers and writes.
            try await store.apply([.setMetadata(BookmarkIndexMetadata(), for: .private)])
            return open
        }
        #expect(counts == 2)
        #expect(await host.openStoreCount == 1)
    }

    @Test func theResidentBytesBoundClosesStoresToo() async throws {
        // What one synced store of 90 bookmarks keeps in memory.
        let probe = try await HostHarness(accounts: 1, bookmarks: { _ in 90 })
        try await probe.host.startAutoSync(probe.ids[0], for: .public)
        await probe.run()
        await probe.host.waitUntilIdle()
        let one = await probe.host.residentBytes
        #expect(one > 90 * 100)
        await probe.host.shutdown()
        // Room for two and a half such stores: the third sync closes the least recently used.
        let bound = one * 5 / 2
        let harness = try await HostHarness(accounts: 3, bookmarks: { _ in 90 }, configuration: .init(maximumResidentBytes: bound, egress: .init(seed: 1)))
        let host = harness.host
        for id in harness.ids {
            try await host.startAutoSync(id, for: .public)
            await harness.run()
            await host.waitUntilIdle()
            #expect(await host.residentBytes <= bound)
        }
        #expect(await host.openStoreCount == 2)
        #expect(try await harness.indexedIDs(harness.ids[0]) == harness.serverIDs(harness.ids[0]), "the evicted store reopens whole")
    }

    @Test func anAccountWhoseStoreCannotOpenReportsItAndTheOthersGoOn() async throws {
        let harness = try await HostHarness(accounts: 2)
        let host = harness.host
        let log = EventLog(host.events())
        // A directory under a regular file cannot be made.
        let blocker = harness.directory.account("blocker")
        try Data("not a directory".utf8).write(to: blocker)
        let broken = AccountID("broken")
        let source = FakeBookmarkSource(clock: harness.clock)
        try await host.add(HostedAccount(id: broken, directory: blocker.appendingPathComponent("journal")) { source })
        do {
            try await host.startAutoSync(broken, for: .public)
            Issue.record("a store that cannot open did not throw")
        } catch let error as BookmarkHostError {
            #expect(error.code == .storeUnavailable)
            #expect(error.account == broken)
            #expect(error.message.contains(blocker.path))
        }
        let failed = await log.wait { if case .storeFailedToOpen = $0.kind { $0.account == broken } else { false } }
        #expect(failed.count == 1)
        for id in harness.ids { try await host.startAutoSync(id, for: .public) }
        await harness.run()
        for id in harness.ids { #expect(try await harness.indexedIDs(id) == harness.serverIDs(id)) }
    }

    @Test func badAccountsAreClearErrors() async throws {
        let harness = try await HostHarness(accounts: 1)
        let host = harness.host
        do {
            try await host.startAutoSync("nobody", for: .public)
            Issue.record("an unknown account did not throw")
        } catch let error as BookmarkHostError {
            #expect(error.code == .unknownAccount)
        }
        let source = FakeBookmarkSource(clock: harness.clock)
        do {
            try await host.add(HostedAccount(id: harness.ids[0], directory: harness.directory.account("other")) { source })
            Issue.record("a duplicate account did not throw")
        } catch let error as BookmarkHostError {
            #expect(error.code == .duplicateAccount)
        }
        await host.remove(harness.ids[0])
        #expect(await host.accountIDs.isEmpty)
        await host.shutdown()
        do {
            try await host.add(HostedAccount(id: "late", directory: harness.directory.account("late")) { source })
            Issue.record("a stopped host took an account")
        } catch let error as BookmarkHostError {
            #expect(error.code == .stopped)
        }
    }
}
