import BookmarkIndex
import BookmarkSync
@testable import BookmarkScreen
import Foundation
import Observation
import Testing

/// The toast's rows: one per list that syncs, waits or stopped, a finished row that stays until
/// dismissed, nothing for an idle list.
@MainActor
@Suite("Sync toast", .hangLimit)
struct SyncToastTests {
    static let idle = ListSyncStatus.idle(lastFullSync: nil, lastDeltaSync: nil)

    static func progress(_ indexed: Int, of total: Int?, mode: SyncMode = .full) -> SyncProgress {
        SyncProgress(mode: mode, pagesFetched: indexed / 30, indexedCount: indexed, knownTotal: total, latestIllust: nil)
    }

    static func status(_ publicList: ListSyncStatus, _ privateList: ListSyncStatus = idle) -> SyncStatus {
        SyncStatus(publicList: publicList, privateList: privateList)
    }

    @Test func rowsFollowTheStatus() async throws {
        let harness = try await ScreenHarness()
        let toast = SyncToast(engine: harness.engine)
        toast.apply(Self.status(Self.idle), indexedCounts: [.public: 160])
        #expect(toast.rows.isEmpty, "idle lists show nothing")

        toast.apply(Self.status(.syncing(Self.progress(30, of: 120)), .queued), indexedCounts: [:])
        #expect(toast.rows.map(\.list) == [.public, .private])
        #expect(toast.rows[0].fractionCompleted == 0.25)
        #expect(toast.rows[1].phase == .queued && toast.rows[1].fractionCompleted == nil)

        // A delta, or a list whose size Pixiv does not tell, has no fraction.
        toast.apply(Self.status(.syncing(Self.progress(30, of: nil)), .syncing(Self.progress(10, of: 50, mode: .delta))), indexedCounts: [:])
        #expect(toast.rows.map(\.fractionCompleted) == [nil, nil])

        let until = Date(timeIntervalSince1970: 1_800_000_000)
        toast.apply(Self.status(.coolingDown(until: until), .backingOff(until: until, attempt: 2)), indexedCounts: [:])
        #expect(toast.rows.map(\.phase) == [.waiting(until: until, because: .rateLimited), .waiting(until: until, because: .retrying(attempt: 2))])

        let signedOut = BookmarkSyncError(.unauthorized, "sign in again")
        toast.apply(Self.status(.failed(signedOut), .paused(until: until, reason: signedOut)), indexedCounts: [:])
        #expect(toast.rows.map(\.phase) == [.failed(signedOut), .paused(until: until, reason: signedOut)])

        toast.apply(Self.status(.disabled, .disabled), indexedCounts: [:])
        #expect(toast.rows.isEmpty, "switched off: no toast")
    }

    @Test func aFinishedSyncStaysUntilDismissed() async throws {
        let harness = try await ScreenHarness()
        let toast = SyncToast(engine: harness.engine)
        toast.apply(Self.status(.syncing(Self.progress(100, of: 160))), indexedCounts: [.public: 100])
        toast.apply(Self.status(.syncing(Self.progress(130, of: 160))), indexedCounts: [.public: 130])
        // Dismissed while syncing: the next page does not bring it back.
        toast.dismiss(.public)
        toast.apply(Self.status(.syncing(Self.progress(160, of: 160))), indexedCounts: [.public: 160])
        #expect(toast.rows.isEmpty)
        // Its end does: 60 more bookmarks than when the toast saw it begin.
        toast.apply(Self.status(Self.idle), indexedCounts: [.public: 160])
        #expect(toast.rows.map(\.phase) == [.finished(indexedCount: 160, change: 60)])
        toast.apply(Self.status(Self.idle), indexedCounts: [.public: 160])
        #expect(toast.rows.count == 1, "it stays while the list is idle")
        toast.dismiss(.public)
        #expect(toast.rows.isEmpty)
        toast.apply(Self.status(Self.idle), indexedCounts: [.public: 160])
        #expect(toast.rows.isEmpty, "until something new happens")
    }

    /// Through the engine: a first walk shows a syncing row and ends with a finished one.
    @Test func aWalkThroughTheEngine() async throws {
        let harness = try await ScreenHarness()
        harness.source.add(harness.works(from: 1, count: 90), to: .public)
        let toast = SyncToast(engine: harness.engine)
        var phases: [SyncToast.Phase] = []
        let observing = Task { await toast.observe() }
        defer { observing.cancel() }
        let watching = Task { @MainActor in
            for await _ in Observations({ toast.rows }) {
                if let phase = toast.rows.first?.phase { phases.append(phase) }
            }
        }
        defer { watching.cancel() }
        await harness.engine.startAutoSync(for: .public)
        await harness.run()
        for _ in 0..<10_000 where toast.rows.first.map({ if case .finished = $0.phase { true } else { false } }) != true {
            await Task.yield()
        }
        #expect(toast.rows.map(\.phase) == [.finished(indexedCount: 90, change: 90)])
        #expect(phases.contains { if case .syncing = $0 { true } else { false } }, "a syncing row was shown: \(phases)")
    }
}
