import BookmarkIndex
import BookmarkSync
import Foundation

/// The host's owner: `run()` and a graceful shutdown, and the event stream.
extension BookmarkHost {
    /// Runs every account's syncs in the calling task until it is cancelled or `shutdown()`
    /// is called; then shuts down gracefully and returns: each request in flight is answered
    /// and its page written, the engines stop, the stores close. Nothing acknowledged is lost.
    ///
    /// Call it from the task that owns the host's life (a service group's `run()`, the main
    /// task of a server). Without it, each account's work runs in a task of its engine's own,
    /// and `shutdown()` stops it. A second concurrent call returns at once.
    public func run() async {
        guard phase == .active, runner == nil else { return }
        let (engines, runner) = AsyncStream.makeStream(of: BookmarkSyncEngine.self)
        self.runner = runner
        for account in open.values { runner.yield(account.engine) }
        await withDiscardingTaskGroup { group in
            // Ends when the task is cancelled or a shutdown finishes the stream.
            for await engine in engines {
                group.addTask { await engine.run() }
            }
            // Each engine lets its request in flight finish before its run() returns.
            group.cancelAll()
        }
        self.runner = nil
        await finishShutdown()
    }

    /// Stops the host gracefully and returns once it has stopped: every engine lets its request
    /// in flight be answered and its page written, then stops; every store closes; the event
    /// stream ends; later calls throw ``BookmarkHostError/Code/stopped``. With `run()` active,
    /// that call returns too.
    public func shutdown() async {
        if phase == .active { phase = .stopping }
        guard phase != .stopped else { return }
        if let runner {
            runner.finish()
            await withCheckedContinuation { stopWaiters.append($0) }
            return
        }
        await finishShutdown()
    }

    private func finishShutdown() async {
        guard phase != .stopped else { return }
        phase = .stopping
        for task in opening.values { _ = try? await task.value }
        await withDiscardingTaskGroup { group in
            for engine in open.values.map(\.engine) { group.addTask { await engine.shutdown() } }
        }
        for id in open.keys.sorted() { await close(id, evicted: false) }
        phase = .stopped
        subscribers.finish()
        for waiter in stopWaiters { waiter.resume() }
        stopWaiters.removeAll()
    }

    /// A stream of what every account's engine and store do (`SyncEvent`, each with its
    /// `SyncEvent/account`), and what the host does: accounts added and removed, stores
    /// opened, closed and evicted, an account quarantined, the shared address cooling down.
    ///
    /// Each call returns a new, independent stream from now on; it ends at the host's shutdown
    /// or when the consumer stops iterating. The default buffer keeps every event; a server
    /// that only counts can pass `.bufferingNewest(_:)`.
    public nonisolated func events(
        bufferingPolicy: AsyncStream<SyncEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<SyncEvent> {
        subscribers.subscribe(bufferingPolicy: bufferingPolicy).stream
    }
}
