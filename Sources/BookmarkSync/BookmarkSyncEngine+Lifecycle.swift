import BookmarkIndex
import Foundation

/// Who runs the engine's work, and how it stops: swift-service-lifecycle's shape without the
/// dependency.
extension BookmarkSyncEngine {
    /// Where the work loop runs and whether the engine still takes work.
    struct Lifecycle: Sendable {
        enum Phase: Sendable { case active, stopping, stopped }
        var phase = Phase.active
        /// The work loop runs, or is about to.
        var isWorking = false
        /// ``BookmarkSyncEngine/run()`` is active: the work loop runs in its task.
        var ownedByRun = false
        /// A work loop started before ``BookmarkSyncEngine/run()`` runs in a task of its own.
        var workingAlone = false
        /// `run()` waiting for work, or for the loop running alone to end.
        var runWaiter: CheckedContinuation<Void, Never>?
        var stopWaiters: [CheckedContinuation<Void, Never>] = []

        var acceptsWork: Bool { phase == .active }

        mutating func wakeRun() {
            runWaiter?.resume()
            runWaiter = nil
        }
    }

    /// Runs the engine's syncs in the calling task until the task is cancelled or
    /// ``shutdown()`` is called; then shuts down gracefully and returns.
    ///
    /// Optional: without it, the first user intent starts the work in a task of the engine's
    /// own. A server owns its engines' work by running each in its service group or task group:
    ///
    /// ```swift
    /// try await withThrowingDiscardingTaskGroup { group in
    ///     group.addTask { await engine.run() }
    ///     await engine.startAutoSync(for: .public)
    ///     // ... until the group's task is cancelled
    /// }
    /// ```
    ///
    /// Cancellation does not cut a request short: the request in flight is answered and its
    /// page written (a walk's cursor with it, so the walk resumes there next time), queued syncs
    /// are dropped, and then `run()` returns. A second concurrent call returns at once.
    public func run() async {
        guard !lifecycle.ownedByRun, lifecycle.phase == .active else { return }
        lifecycle.ownedByRun = true
        await withTaskCancellationHandler {
            await runLoop()
        } onCancel: {
            Task { await self.beginShutdown() }
        }
        await finishShutdown()
    }

    private func runLoop() async {
        while lifecycle.phase == .active || lifecycle.isWorking {
            if lifecycle.isWorking, !lifecycle.workingAlone {
                await work()
            } else {
                await withCheckedContinuation { lifecycle.runWaiter = $0 }
            }
        }
    }

    /// Stops the engine gracefully and returns once it has stopped: the request in flight is
    /// answered and its page written durably, queued and waiting syncs are dropped (a walk's
    /// saved cursor stays, so a later engine resumes it), event and status streams end, and
    /// later intents return ``SyncRequestOutcome/stopped``. The store stays open: it is the
    /// caller's to close. Calling it again returns when the first call has finished.
    public func shutdown() async {
        beginShutdown()
        guard lifecycle.phase != .stopped else { return }
        if lifecycle.ownedByRun {
            await withCheckedContinuation { lifecycle.stopWaiters.append($0) }
            return
        }
        await waitUntilIdle()
        await finishShutdown()
    }

    /// Cancels `restrict`'s sync: a queued one is dropped; a running one ends now, or once the
    /// request in flight is answered and its page written (so a walk resumes from there). The
    /// other list's sync goes on. The next user intent may start it again.
    public func cancelSync(of restrict: Restrict) async {
        machine.stop(restrict)
        // A wait for this list ends early; a wait of the other list's resumes by itself.
        sleeper?.cancel()
        publish()
    }

    /// A stream of what the engine does, for logs and metrics (``SyncEvent``): requests sent
    /// and answered, pages applied, backoffs, cooldowns, waits for the day's budget, pauses.
    ///
    /// Each call returns a new, independent stream from now on; it ends when the engine shuts
    /// down or the consumer stops iterating. The default buffer keeps every event.
    public nonisolated func events(
        bufferingPolicy: AsyncStream<SyncEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<SyncEvent> {
        eventSubscribers.subscribe(bufferingPolicy: bufferingPolicy).stream
    }

    /// Gives `kind` to the engine's streams and its host's.
    func emit(_ kind: SyncEvent.Kind) {
        let event = SyncEvent(date: clock.now, account: account, kind: kind)
        eventSubscribers.yield(event)
        hostEvents?.yield(event)
    }

    func beginShutdown() {
        guard lifecycle.phase == .active else { return }
        lifecycle.phase = .stopping
        for restrict in Restrict.allCases { machine.stop(restrict) }
        withdrawQueuedWrites()
        sleeper?.cancel()
        lifecycle.wakeRun()
        publish()
    }

    private func finishShutdown() async {
        guard lifecycle.phase != .stopped else { return }
        lifecycle.phase = .stopped
        if let egress, let account { await egress.leave(account) }
        publish()
        emit(.stopped)
        eventSubscribers.finish()
        subscribers.finish()
        for waiter in lifecycle.stopWaiters { waiter.resume() }
        lifecycle.stopWaiters.removeAll()
    }

    /// Starts the work loop: in ``run()``'s task when it is active, else in a task of its own.
    func startWorking() {
        lifecycle.isWorking = true
        activity?(true)
        if lifecycle.ownedByRun {
            lifecycle.wakeRun()
        } else {
            lifecycle.workingAlone = true
            Task { await self.work() }
        }
    }
}
