import BookmarkIndex
import Foundation

/// Write-through bookmarking: the app's tap changes the index at once and its POST goes through
/// the account's one paced request stream, ahead of the next page of any sync; a refused POST
/// rolls the index back.
extension BookmarkSyncEngine {
    /// A bookmark or unbookmark waiting for its turn in the request stream.
    struct PendingWrite: Sendable {
        enum Request: Sendable {
            case add(illustID: Int, restrict: Restrict)
            case delete(illustID: Int, from: Restrict)
        }

        var request: Request
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// Bookmarks `illust` in `restrict`'s list: the row appears at once on top of the list (a
    /// work the other list holds moves), then the POST goes out, before the next page of any
    /// sync, paced like every request. Returns when Pixiv has accepted it.
    ///
    /// - Throws: ``BookmarkSyncError`` when Pixiv refused it or it could not be sent (the index
    ///   is rolled back to what it held before, and the error says why), or a `BookmarkIndexError`
    ///   when the store cannot write (nothing was sent).
    public func bookmark(_ illust: BookmarkedIllustSnapshot, in restrict: Restrict) async throws {
        let (recordings, now) = (InAppRecordings(configuration: configuration), clock.now)
        let undo = try await store.update { index in
            let undo = InAppRecordings.Undo(illustID: illust.id, index: index)
            return (recordings.recordBookmark(illust, restrict: restrict, index: index, now: now), undo)
        }
        try await sending(.add(illustID: illust.id, restrict: restrict), undoing: undo)
    }

    /// Removes the bookmark of `illustID` from whichever list holds it: the row goes at once
    /// (under a tombstone, so no page fetched around now brings it back), then the POST goes
    /// out as ``bookmark(_:in:)``'s does. A work the index does not hold is unbookmarked on
    /// Pixiv all the same.
    ///
    /// - Throws: as ``bookmark(_:in:)``.
    public func unbookmark(illustID: Int) async throws {
        let (recordings, now) = (InAppRecordings(configuration: configuration), clock.now)
        let (undo, list) = try await store.update { index in
            let undo = InAppRecordings.Undo(illustID: illustID, index: index)
            let list = Restrict.allCases.first { index.contains(BookmarkKey(illustID: illustID, restrict: $0)) }
            let changes = list.map { recordings.recordUnbookmark(BookmarkKey(illustID: illustID, restrict: $0), index: index, now: now) } ?? []
            return (changes, (undo, list))
        }
        try await sending(.delete(illustID: illustID, from: list ?? .public), undoing: undo)
    }

    /// Moves the bookmark of `illustID` to `restrict`'s list (public to private or back), as
    /// ``bookmark(_:in:)`` with the work as the index holds it. Nothing happens when it is
    /// there already.
    ///
    /// - Throws: ``BookmarkSyncError`` with code ``BookmarkSyncError/Code/other`` when the index
    ///   holds the work in neither list; else as ``bookmark(_:in:)``.
    public func move(illustID: Int, to restrict: Restrict) async throws {
        let index = await store.state
        if index.contains(BookmarkKey(illustID: illustID, restrict: restrict)) { return }
        guard let row = index.bookmark(for: BookmarkKey(illustID: illustID, restrict: restrict.other)) else {
            throw BookmarkSyncError(.other, "Work \(illustID) is in neither list of the index, so there is nothing to move; bookmark it with bookmark(_:in:).")
        }
        try await bookmark(row.illust, in: restrict)
    }

    /// Queues `request` in the request stream and waits for its answer; rolls back with `undo`
    /// when it fails.
    private func sending(_ request: PendingWrite.Request, undoing undo: InAppRecordings.Undo) async throws {
        _ = await facts()
        publish()
        do {
            guard lifecycle.acceptsWork else {
                throw BookmarkSyncError(.other, "The engine was shut down before the change was sent to Pixiv; it was not made.")
            }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                writeQueue.append(PendingWrite(request: request, continuation: continuation))
                machine.writeQueued()
                if lifecycle.isWorking {
                    // A worker asleep (for a backoff, the day's budget) wakes to send it.
                    sleeper?.cancel()
                } else {
                    startWorking()
                }
            }
        } catch {
            _ = try? await store.update { index in (undo.changes(in: index), ()) }
            _ = await facts()
            publish()
            throw error
        }
    }

    /// Sends the next queued write (the machine said so) and reports its answer.
    func performWrite() async {
        guard !writeQueue.isEmpty else {
            machine.writeAnswered(nil, now: moment)
            return
        }
        let write = writeQueue.removeFirst()
        let (endpoint, list, illustID): (SyncEvent.Endpoint, Restrict, Int) = switch write.request {
        case .add(let id, let restrict): (.addBookmark, restrict, id)
        case .delete(let id, let from): (.deleteBookmark, from, id)
        }
        // A tap, once dequeued, is always wanted: it waits for its turn and goes.
        let turn = EgressRequest(account: account ?? AccountID(""), neverSynced: false)
        _ = await takeEgressTurn(turn) { true }
        emit(.requestSent(endpoint, list: list))
        let sent = clock.instant
        do {
            switch write.request {
            case .add: try await source.addBookmark(illustID: illustID, restrict: list)
            case .delete: try await source.deleteBookmark(illustID: illustID)
            }
            await answered(endpoint, list, .success, since: sent, turn: turn)
            machine.writeAnswered(nil, now: moment)
            write.continuation.resume()
        } catch {
            let error = BookmarkSyncError(classifying: error)
            await answered(endpoint, list, .failure(error.code, httpStatus: nil), since: sent, turn: turn, error: error)
            machine.writeAnswered(error, now: moment)
            write.continuation.resume(throwing: error)
        }
    }

    /// Fails every write not yet sent (the engine stops).
    func withdrawQueuedWrites() {
        let writes = writeQueue
        writeQueue.removeAll()
        for write in writes {
            machine.writeWithdrawn()
            write.continuation.resume(throwing: BookmarkSyncError(.other, "The engine shut down before the change was sent to Pixiv; it was not made."))
        }
    }
}
