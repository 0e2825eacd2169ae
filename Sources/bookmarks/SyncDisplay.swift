import Synchronization
import BookmarkIndex
import BookmarkSync
import Foundation

/// The sync toast in text: one row per list, redrawn in place on a terminal, printed as plain
/// lines (only when something worth a line changed) otherwise.
final class SyncDisplay: Sendable {
    private struct Drawn {
        var rows = 0
        var plainLines: [Restrict: String] = [:]
        var plainPages: [Restrict: Int] = [:]
    }

    private let interactive = Terminal.isInteractive
    private let drawn = Mutex(Drawn())

    func show(_ status: SyncStatus) {
        let rows = Restrict.allCases.map { ($0, Self.describe(status[$0], restrict: $0)) }
        drawn.withLock { drawn in
            if interactive {
                var output = drawn.rows > 0 ? "\u{1B}[\(drawn.rows)F" : ""
                for (_, text) in rows { output += "\u{1B}[2K" + text + "\n" }
                FileHandle.standardOutput.write(Data(output.utf8))
                drawn.rows = rows.count
                return
            }
            for (restrict, text) in rows {
                // Plain output: a line when the state changes, and every 20 pages while syncing.
                var pages = 0
                if case .syncing(let progress) = status[restrict] { pages = progress.pagesFetched }
                let kind = text.split(separator: " ").prefix(2).joined(separator: " ")
                let previousKind = drawn.plainLines[restrict]?.split(separator: " ").prefix(2).joined(separator: " ")
                if kind != previousKind || pages >= (drawn.plainPages[restrict] ?? 0) + 20 {
                    print(text)
                    drawn.plainLines[restrict] = text
                    drawn.plainPages[restrict] = pages
                }
            }
            // Progress is for now: a pipe (a log, another program) sees each line as it happens.
            fflush(nil)
        }
    }

    static func describe(_ status: ListSyncStatus, restrict: Restrict) -> String {
        let name = restrict.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        switch status {
        case .idle(let lastFull, let lastDelta):
            let last = [lastFull.map { "full \(clockTime($0))" }, lastDelta.map { "delta \(clockTime($0))" }].compactMap { $0 }
            return "\(name) idle" + (last.isEmpty ? " (never synced)" : " (last sync: \(last.joined(separator: ", ")))")
        case .syncing(let progress):
            let total = progress.knownTotal.map { " of \($0)" } ?? ""
            let latest = progress.latestIllust.map { "  latest illust \($0.id)" } ?? ""
            let left = progress.estimatedTimeLeft.map { "  about \(duration($0)) left" } ?? ""
            return "\(name) syncing \(Terminal.accent(progress.mode.rawValue))  page \(progress.pagesFetched)  \(progress.indexedCount)\(total) indexed\(left)\(latest)"
        case .queued:
            return "\(name) queued (waits for the other list: one request stream)"
        case .backingOff(let until, let attempt):
            return Terminal.warning("\(name) backing off until \(clockTime(until)) (attempt \(attempt))")
        case .coolingDown(let until):
            return Terminal.warning("\(name) cooling down until \(clockTime(until)) (Pixiv's rate limit; both lists wait, then go on more slowly)")
        case .waitingForDailyBudget(let until, let progress):
            let total = progress.knownTotal.map { " of \($0)" } ?? ""
            return Terminal.warning("\(name) waiting for the day's request budget until \(clockTime(until))  page \(progress.pagesFetched)  \(progress.indexedCount)\(total) indexed (the walk resumes where it stopped; deltas still go out)")
        case .paused(let until, let reason):
            return Terminal.warning("\(name) paused until \(clockTime(until)): \(reason.code)")
        case .failed(let error):
            return Terminal.warning("\(name) failed: \(error.message)")
        case .disabled:
            return "\(name) disabled (indexing is off)"
        }
    }

    /// `42 s`, `3 min 5 s`, `1 h 40 min`.
    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total) s" }
        if total < 3_600 { return "\(total / 60) min \(total % 60) s" }
        return "\(total / 3_600) h \(total % 3_600 / 60) min"
    }

    static func clockTime(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}

/// Runs `restricts`' syncs on `engine`, drawing the toast, until the engine is idle or the user
/// presses Ctrl-C. Returns `false` when interrupted.
func runSyncs(
    _ restricts: [Restrict],
    full: Bool,
    engine: BookmarkSyncEngine
) async -> Bool {
    let display = SyncDisplay()
    let updates = await engine.statusUpdates()
    let interrupted = InterruptFlag()
    let handler = InterruptHandler {
        interrupted.set()
        Task { await engine.setIndexingEnabled(false) }
    }
    defer { handler.cancel() }
    let drawing = Task {
        for await status in updates { display.show(status) }
    }
    for restrict in restricts {
        if full { await engine.refresh(restrict) } else { await engine.startAutoSync(for: restrict) }
    }
    // A walk that waits for the day's budget waits hours: the command ends there instead (the
    // walk resumes, where it stopped, at the next `bookmarks sync`).
    let parked = Task { () -> SyncStatus? in
        for await status in await engine.statusUpdates() where status.onlyWaitsForTheDay {
            await engine.setIndexingEnabled(false)
            return status
        }
        return nil
    }
    await engine.waitUntilIdle()
    parked.cancel()
    // Let the last status reach the display (the wait for the day, rather than "disabled").
    if let waiting = await parked.value {
        display.show(waiting)
    } else {
        display.show(await engine.currentStatus())
    }
    drawing.cancel()
    return !interrupted.isSet
}

extension SyncStatus {
    /// Whether all that is left is a walk waiting for the day's budget.
    var onlyWaitsForTheDay: Bool {
        var waits = false
        for restrict in Restrict.allCases {
            switch self[restrict] {
            case .waitingForDailyBudget: waits = true
            case .syncing, .queued, .backingOff, .coolingDown: return false
            case .idle, .paused, .failed, .disabled: break
            }
        }
        return waits
    }
}
