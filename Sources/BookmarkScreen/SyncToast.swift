import BookmarkIndex
import BookmarkSync
import Foundation
import Observation

/// The sync toast of a Bookmarks screen: a row per list that is syncing, waiting, stopped by a
/// problem, or just finished.
///
/// Bind a view to ``rows`` and run ``observe()`` while the screen is shown. A list that is idle
/// (and was not synced while the toast watched) has no row, so an empty ``rows`` hides the toast.
///
/// ```swift
/// let toast = SyncToast(engine: engine)
/// Task { await toast.observe() }
/// // toast.rows: [Row(list: .public, phase: .syncing(progress), fractionCompleted: 0.4)]
/// ```
///
/// A finished sync keeps its row (``Phase/finished(indexedCount:change:)``: how many bookmarks
/// the list holds and how many more or fewer than when the sync began) until ``dismiss(_:)``,
/// or the next sync of the list replaces it: a toast that says "Up to date, 12 new" and fades
/// after a few seconds is the view's timer calling `dismiss`.
@MainActor
@Observable
public final class SyncToast {
    /// One list's row.
    public struct Row: Identifiable, Sendable, Hashable {
        /// The list.
        public var list: Restrict
        /// What its sync is doing.
        public var phase: Phase
        /// The row's identity: its list.
        public var id: Restrict { list }

        /// How far a full walk has got, from 0 to 1, when the list's size is known (Pixiv tells
        /// it for the public list only); `nil` otherwise (a delta, or the private list: show an
        /// indeterminate spinner).
        public var fractionCompleted: Double? {
            guard case .syncing(let progress) = phase, progress.mode == .full,
                  let total = progress.knownTotal, total > 0 else { return nil }
            return min(1, Double(progress.indexedCount) / Double(total))
        }
    }

    /// What one list's sync is doing, as the toast says it.
    public enum Phase: Sendable, Hashable {
        /// Fetching pages.
        case syncing(SyncProgress)
        /// Waiting for the other list's sync.
        case queued
        /// Waiting before it goes on by itself: after a failed request (`BookmarkSyncEngine`
        /// retries), while Pixiv's rate limit cools down, or until the day's request budget has
        /// room again.
        case waiting(until: Date, because: WaitReason)
        /// Stopped after repeated failures; syncs are refused until `until`.
        case paused(until: Date, reason: BookmarkSyncError)
        /// Stopped by an error that retrying does not fix (signed out, for one); the next pull
        /// to refresh tries again.
        case failed(BookmarkSyncError)
        /// The sync ended; the list holds `indexedCount` bookmarks, `change` more (or fewer)
        /// than when the toast saw it begin.
        case finished(indexedCount: Int, change: Int)
    }

    /// Why a list waits.
    public enum WaitReason: Sendable, Hashable {
        /// A request failed; `attempt` counts the failures in a row (0: the server asked to wait).
        case retrying(attempt: Int)
        /// Pixiv rate-limited the account: nothing goes out until the wait ends.
        case rateLimited
        /// A full walk spent the walk's share of the day's request budget; `progress` is where
        /// it stopped.
        case dailyBudget(SyncProgress)
    }

    /// The rows to show, public list first; empty when there is nothing to say.
    public private(set) var rows: [Row] = []
    /// The engine's last status, for a view that wants more than the rows.
    public private(set) var status: SyncStatus?

    @ObservationIgnored private let engine: BookmarkSyncEngine
    /// Per list, the bookmarks it held when the toast saw its sync begin.
    @ObservationIgnored private var countAtStart: [Restrict: Int] = [:]
    /// Per list, its phase, shown or dismissed.
    @ObservationIgnored private var phases: [Restrict: Phase] = [:]
    @ObservationIgnored private var dismissed: Set<Restrict> = []

    /// A toast of `engine`'s syncs; it shows nothing until ``observe()``.
    public init(engine: BookmarkSyncEngine) {
        self.engine = engine
    }

    /// Follows the engine's status until the calling task is cancelled or the engine shuts down.
    public func observe() async {
        for await status in await engine.statusUpdates(bufferingPolicy: .bufferingNewest(1)) {
            // O(1) each: what a finished row says.
            let counts = await [Restrict.public: engine.store.count(in: .public), .private: engine.store.count(in: .private)]
            apply(status, indexedCounts: counts)
        }
    }

    /// Hides `list`'s row until its sync does something else (pages of one sync do not bring
    /// it back; the next wait, failure or end does).
    public func dismiss(_ list: Restrict) {
        dismissed.insert(list)
        rows.removeAll { $0.list == list }
    }

    /// Turns a status, and how many bookmarks each list holds, into rows; internal so tests can
    /// feed statuses in order.
    func apply(_ status: SyncStatus, indexedCounts: [Restrict: Int]) {
        for list in [Restrict.public, .private] {
            let next = nextPhase(status[list], list: list, count: indexedCounts[list] ?? 0)
            // A dismissed row comes back when its list does something else, not on every page.
            if next.map(Self.kind) != phases[list].map(Self.kind) { dismissed.remove(list) }
            phases[list] = next
        }
        rows = [Restrict.public, .private].compactMap { list in
            guard let phase = phases[list], !dismissed.contains(list) else { return nil }
            return Row(list: list, phase: phase)
        }
        self.status = status
    }

    private func nextPhase(_ status: ListSyncStatus, list: Restrict, count: Int) -> Phase? {
        let current = phases[list]
        if let phase = Self.phase(of: status) {
            if case .syncing(let progress) = phase, countAtStart[list] == nil {
                countAtStart[list] = min(progress.indexedCount, count)
            }
            return phase
        }
        guard case .idle = status else {
            countAtStart[list] = nil
            return nil
        }
        // A sync the toast saw begin has ended: its finished row, until dismissed.
        if let start = countAtStart.removeValue(forKey: list) {
            return .finished(indexedCount: count, change: count - start)
        }
        if case .finished? = current { return current }
        return nil
    }

    private static func phase(of status: ListSyncStatus) -> Phase? {
        switch status {
        case .idle, .disabled: nil
        case .syncing(let progress): .syncing(progress)
        case .queued: .queued
        case .backingOff(let until, let attempt): .waiting(until: until, because: .retrying(attempt: attempt))
        case .coolingDown(let until): .waiting(until: until, because: .rateLimited)
        case .waitingForDailyBudget(let until, let progress): .waiting(until: until, because: .dailyBudget(progress))
        case .paused(let until, let reason): .paused(until: until, reason: reason)
        case .failed(let error): .failed(error)
        }
    }

    /// The case of `phase`, without its values.
    private static func kind(_ phase: Phase) -> Int {
        switch phase {
        case .syncing: 0
        case .queued: 1
        case .waiting: 2
        case .paused: 3
        case .failed: 4
        case .finished: 5
        }
    }
}
