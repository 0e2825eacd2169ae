import BookmarkHost
import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
@testable import BookmarkSync
import Foundation
import Synchronization
import Testing

/// Many accounts syncing through one host: one address's limit kept, fair turns, a graceful
/// shutdown mid-walk, and whose refusal a rate-limit answer is.
@Suite struct HostSyncTests {
    @Test func thirtyAccountsBehindOneAddressLimitCompleteWithAtMostTwoRefusals() async throws {
        let clock = TestClock()
        let limit = AddressLimit(limit: 100, window: 120, penalty: 300)
        let harness = try await HostHarness(accounts: 30, bookmarks: { 100 + $0 * 7 }, clock: clock)
        for source in harness.sources.values { source.setFaultRule(limit.rule(clock: clock)) }
        for id in harness.ids { try await harness.host.startAutoSync(id, for: .public) }
        await harness.run()
        #expect(limit.refusals <= 2, "\(limit.refusals) rate-limit answers")
        for id in harness.ids {
            #expect(try await harness.indexedIDs(id) == harness.serverIDs(id))
        }
        // No 120 s held more than the address allows, over every account's requests.
        let starts = harness.sources.values.flatMap { $0.requests.map(\.startedAt) }.sorted()
        #expect(starts.count > 150)
        for start in starts {
            #expect(starts.filter { $0 >= start && $0 < start + 120 }.count <= 100)
        }
    }

    @Test func aOneRequestDeltaIsNotStarvedByALongWalk() async throws {
        let clock = TestClock()
        // Two long walks, and an account synced before that only needs a delta.
        let configuration = BookmarkHost.Configuration(sync: SyncConfiguration(deltaCooldown: 0), egress: .init(seed: 3))
        let harness = try await HostHarness(accounts: 3, bookmarks: { $0 < 2 ? 1_500 : 30 }, configuration: configuration, clock: clock)
        let (walker, delta) = (harness.ids[0], harness.ids[2])
        try await harness.host.startAutoSync(delta, for: .public)
        await harness.run()
        try await harness.host.startAutoSync(walker, for: .public)
        try await harness.host.startAutoSync(harness.ids[1], for: .public)
        // Well into the walks, the delta account asks.
        let walkerSource = harness.sources[walker]!
        _ = await clock.run(whileBusy: { walkerSource.requests.count < 20 }, participants: { harness.host.busyAccountCount })
        let asked = clock.now
        harness.sources[delta]!.clearLog()
        #expect(try await harness.host.startAutoSync(delta, for: .public) == .started)
        await harness.run()
        let deltaRequest = try #require(harness.sources[delta]!.requests.first)
        let between = [walker, harness.ids[1]].flatMap { harness.sources[$0]!.requests }
            .filter { $0.startedAt > asked && $0.startedAt < deltaRequest.startedAt }
        #expect(between.count <= 2, "\(between.count) walk requests went before the delta")
        #expect(deltaRequest.startedAt.timeIntervalSince(asked) < 10)
    }

    @Test func shutdownMidWalkLeavesEveryJournalHealthyAndTheWalksResume() async throws {
        let clock = TestClock()
        let harness = try await HostHarness(accounts: 3, bookmarks: { _ in 300 }, clock: clock)
        let host = harness.host
        let stopped = Flag()
        let runner = Task {
            await host.run()
            stopped.set()
        }
        for id in harness.ids { try await host.startAutoSync(id, for: .public) }
        let sources = harness.sources
        _ = await clock.run(whileBusy: {
            sources.values.map(\.requests.count).reduce(0, +) < 12 || sources.values.map(\.requestsInFlight).reduce(0, +) == 0
        }, participants: { host.busyAccountCount })
        runner.cancel()
        #expect(await clock.run(whileBusy: { !stopped.isSet }, participants: { host.busyAccountCount }, maxSteps: 100_000))
        // Each journal reads back whole, and holds every page that was answered.
        for id in harness.ids {
            let report = try await JournalStorage.verify(directory: harness.directory.account(id.rawValue))
            #expect(report.isHealthy, "\(id): \(report)")
            let answered = harness.sources[id]!.requests.filter { $0.kind != .total }.count
            #expect(report.livePublicBookmarks == min(300, answered * 30), "\(id): the page in flight was written")
        }
        do {
            try await host.startAutoSync(harness.ids[0], for: .public)
            Issue.record("a stopped host started a sync")
        } catch let error as BookmarkHostError {
            #expect(error.code == .stopped)
        }
        // A new host resumes each walk where it stopped.
        let restarted = try await harness.restarted()
        for source in harness.sources.values { source.clearLog() }
        for id in restarted.ids { try await restarted.host.startAutoSync(id, for: .public) }
        await restarted.run()
        for id in restarted.ids {
            #expect(try await restarted.indexedIDs(id) == restarted.serverIDs(id))
            let first = harness.sources[id]!.requests.first { $0.kind != .total }
            #expect(first?.kind != .firstPage, "\(id) started its walk over")
        }
    }

    @Test func refusalsOfSeveralAccountsAtOnceCoolTheAddressNotEachAccount() async throws {
        let clock = TestClock()
        let harness = try await HostHarness(accounts: 3, bookmarks: { _ in 120 }, clock: clock)
        let log = EventLog(harness.host.events())
        // The first request of each of two accounts is refused.
        harness.sources[harness.ids[0]]!.failNext(BookmarkSyncError(.rateLimited, "Rate Limit"))
        harness.sources[harness.ids[1]]!.failNext(BookmarkSyncError(.rateLimited, "Rate Limit"))
        for id in harness.ids { try await harness.host.startAutoSync(id, for: .public) }
        await harness.run()
        let cooldowns = log.all.compactMap { event -> (AccountID?, SyncEvent.CooldownScope)? in
            if case .coolingDown(_, let scope) = event.kind { return (event.account, scope) }
            return nil
        }
        #expect(cooldowns.map(\.1) == [.account, .egress], "\(cooldowns)")
        // Every account completes, and after the address's cooldown nobody went before its end.
        for id in harness.ids { #expect(try await harness.indexedIDs(id) == harness.serverIDs(id)) }
        let egressEnd = try #require(log.all.compactMap { event -> Date? in
            if case .coolingDown(let until, .egress) = event.kind { return until }
            return nil
        }.first)
        let refusedAt = try #require(log.all.last { event in
            if case .requestAnswered(_, _, .failure(.rateLimited, _), _) = event.kind { return true }
            return false
        }?.date)
        let during = harness.sources.values.flatMap(\.requests).filter { $0.startedAt > refusedAt && $0.startedAt < egressEnd }
        #expect(during.isEmpty, "\(during.count) requests went during the address's cooldown")
    }

    @Test func eventsNameTheAccountAndCountEveryRequestAndRow() async throws {
        let harness = try await HostHarness(accounts: 2)
        let log = EventLog(harness.host.events())
        for id in harness.ids { try await harness.host.startAutoSync(id, for: .public) }
        await harness.run()
        await harness.host.remove(harness.ids[1])
        let events = await log.wait { if case .accountRemoved = $0.kind { true } else { false } }
        #expect(events.count == 1)
        let all = log.all
        for id in harness.ids {
            let mine = all.filter { $0.account == id }
            let sent = mine.filter { if case .requestSent = $0.kind { true } else { false } }.count
            let answered = mine.filter { if case .requestAnswered = $0.kind { true } else { false } }.count
            #expect(sent == harness.sources[id]!.requests.count)
            #expect(answered == sent)
            let rows = mine.reduce(0) { if case .pageApplied(_, _, let rows) = $1.kind { $0 + rows } else { $0 } }
            #expect(rows == 45)
            #expect(mine.contains { if case .syncStarted(.public, .full) = $0.kind { true } else { false } })
            #expect(mine.contains { if case .syncEnded(.public) = $0.kind { true } else { false } })
        }
    }
}

/// A flag a background task sets.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
