// Compaction in the background, and the events that report it.

/// When the store compacts: one compaction at a time, and after a failure, a wait of some
/// batches before the next automatic one.
struct CompactionSchedule {
    /// The compaction running, which hands back its failure, if any; or the checkpoint written
    /// in place of one, which hands back none.
    var running: Task<BookmarkIndexError?, Never>?
    var consecutiveFailures = 0
    var batchesUntilRetry = 0

    /// The most batches between a failure and the next automatic try.
    static let longestWait = 1_024

    /// Whether an automatic compaction may start now.
    var mayStart: Bool { running == nil && batchesUntilRetry == 0 }

    mutating func batchWritten() {
        batchesUntilRetry = max(0, batchesUntilRetry - 1)
    }

    /// Records a failure; returns how many batches to wait before the next automatic try.
    mutating func failed() -> Int {
        consecutiveFailures += 1
        batchesUntilRetry = min(Self.longestWait, 16 << min(consecutiveFailures - 1, 10))
        return batchesUntilRetry
    }

    mutating func succeeded() {
        consecutiveFailures = 0
        batchesUntilRetry = 0
    }
}

extension BookmarksIndexStore {
    /// Compacts the storage now, if it can compact (a ``CompactableStorage``; otherwise this
    /// does nothing), and returns when that is done. A compaction already running is waited
    /// for first. Writes and queries go on meanwhile.
    ///
    /// - Throws: ``BookmarkIndexError`` when the compaction fails; the storage then holds what
    ///   it held before (nothing is lost), and the failure is also an event. `CancellationError`
    ///   when the calling task is cancelled before the compaction begins (after waiting for one
    ///   already running, which always finishes); nothing began then, and it is no event.
    public func compact() async throws {
        guard let compactor else { return }
        while true {
            // Waited for without holding the storage, so that writes go on meanwhile.
            await finishCompaction()
            let started = try await writing { () -> Task<BookmarkIndexError?, Never>? in
                guard self.compaction.running == nil else { return nil } // another began first
                return try await self.startCompaction(compactor)
            }
            if let started {
                if let failure = await started.value { throw failure }
                return
            }
        }
    }

    /// A stream of what the store does in the background (compactions, their failures).
    ///
    /// Each call returns a new, independent stream; it ends when the store closes or the
    /// consumer stops iterating.
    public func events(
        bufferingPolicy: AsyncStream<StoreEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<StoreEvent> {
        subscribers.subscribe(bufferingPolicy: bufferingPolicy).stream
    }

    /// After a batch, holding the storage: starts a compaction if the storage asks for one, or
    /// for a journal that a compaction would hardly shrink, a checkpoint in its place.
    func compactIfDue() async {
        compaction.batchWritten()
        guard let compactor, compaction.mayStart, compactor.isCompactionDue else { return }
        if let journal = compactor as? JournalStorage, journal.prefersCheckpoint(over: state) {
            await startCheckpoint(journal)
            return
        }
        do {
            _ = try await startCompaction(compactor)
        } catch {
            // Reported by startCompaction (or refused for a cancelled caller: a later batch
            // begins it); the batch that was written stands.
        }
    }

    /// Waits for the compaction running, if any.
    func finishCompaction() async {
        _ = await compaction.running?.value
    }

    /// Begins a compaction to the current state (the caller holds the storage, so no batch is
    /// in flight) and runs the rest of it in the background, in a task of its own: not the
    /// caller's, so that cancelling the caller (even closing from a cancelled task) never
    /// leaves a compaction begun and not finished.
    private func startCompaction(_ compactor: any CompactableStorage) async throws -> Task<BookmarkIndexError?, Never> {
        let work: @Sendable () async throws -> Void
        do {
            work = try await compactor.beginCompaction(to: state)
        } catch is CancellationError {
            // Refused for a cancelled caller: nothing began, so it is no failure to wait after.
            throw CancellationError()
        } catch {
            let failure = Self.compactionError(error)
            publish(.compactionFailed(failure, retryAfterBatches: compaction.failed()))
            throw failure
        }
        publish(.compactionStarted)
        let task = Task { () -> BookmarkIndexError? in
            let clock = ContinuousClock()
            let start = clock.now
            do {
                try await work()
                compactionEnded(nil, duration: clock.now - start)
                return nil
            } catch {
                let failure = Self.compactionError(error)
                compactionEnded(failure, duration: clock.now - start)
                return failure
            }
        }
        compaction.running = task
        return task
    }

    /// Begins a checkpoint of the current state in place of a compaction (the caller holds the
    /// storage) and writes it in the background, in a task of its own, as a compaction is. No
    /// event: nothing in the journal changes, and a checkpoint that fails to be written costs
    /// the next open time, nothing else.
    private func startCheckpoint(_ journal: JournalStorage) async {
        guard let work = try? await journal.beginCheckpoint(of: state) else { return }
        compaction.running = Task { () -> BookmarkIndexError? in
            await work()
            compaction.running = nil
            return nil
        }
    }

    private func compactionEnded(_ failure: BookmarkIndexError?, duration: Duration) {
        compaction.running = nil
        if let failure {
            publish(.compactionFailed(failure, retryAfterBatches: compaction.failed()))
        } else {
            compaction.succeeded()
            publish(.compactionFinished(duration: duration))
        }
    }

    private static func compactionError(_ error: any Error) -> BookmarkIndexError {
        error as? BookmarkIndexError ?? BookmarkIndexError(.io, "Compaction failed; the storage holds what it held before.", underlying: error)
    }

    func publish(_ event: StoreEvent) {
        subscribers.yield(event)
    }
}
