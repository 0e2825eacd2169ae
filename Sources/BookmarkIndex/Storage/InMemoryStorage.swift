import Synchronization

/// Storage that keeps the index in memory only: for tests, previews and throwaway indexes.
///
/// An instance outlives the store that uses it, so a test can close a store and open another
/// on the same `InMemoryStorage` to check what a restart would see. It records how many batches
/// it was given, for tests that count durable writes. Nothing it does blocks.
public final class InMemoryStorage: BookmarkStorage {
    private struct Contents {
        var state = BookmarkIndexState()
        var appendedBatches = 0
        var isClosed = false
    }

    private let contents: Mutex<Contents>

    /// Empty storage.
    public init() {
        contents = Mutex(Contents())
    }

    /// Storage that starts out holding `state`.
    public init(_ state: BookmarkIndexState) {
        contents = Mutex(Contents(state: state))
    }

    /// How many batches ``append(_:)`` has stored: for tests that count writes
    /// (`@_spi(Testing) import BookmarkIndex`).
    @_spi(Testing) public var appendedBatches: Int { contents.withLock { $0.appendedBatches } }

    public func load() async throws -> BookmarkIndexState {
        contents.withLock { contents in
            contents.isClosed = false
            return contents.state
        }
    }

    public func append(_ changes: [BookmarkChange]) async throws {
        try contents.withLock { contents in
            try Self.checkOpen(contents)
            contents.state.apply(changes)
            contents.appendedBatches += 1
        }
    }

    public func append(contentsOf batches: [[BookmarkChange]]) async throws {
        try contents.withLock { contents in
            try Self.checkOpen(contents)
            for changes in batches { contents.state.apply(changes) }
            contents.appendedBatches += batches.count
        }
    }

    public func reset() async throws {
        try contents.withLock { contents in
            try Self.checkOpen(contents)
            contents.state = BookmarkIndexState()
        }
    }

    public func close() async throws {
        contents.withLock { $0.isClosed = true }
    }

    public func health() async throws -> StorageHealth {
        contents.withLock { contents in
            StorageHealth(
                storage: "in memory",
                publicBookmarks: contents.state.count(in: .public),
                privateBookmarks: contents.state.count(in: .private)
            )
        }
    }

    private static func checkOpen(_ contents: Contents) throws {
        if contents.isClosed {
            throw BookmarkIndexError(.closed, "The in-memory storage was closed; open a new store on it first.")
        }
    }
}
