import Synchronization

/// Storage that keeps the index in memory only: for tests, previews and throwaway indexes.
///
/// An instance outlives the store that uses it, so a test can close a store and open another
/// on the same `InMemoryStorage` to check what a restart would see. It records how many batches
/// it was given, for tests that count durable writes.
public final class InMemoryStorage: BookmarkStorage {
    private struct Contents {
        var state = BookmarkIndexState()
        var appendedBatches = 0
        var isClosed = false
    }

    private let contents = Mutex(Contents())

    /// Empty storage.
    public init() {}

    /// How many batches ``append(_:)`` has stored.
    public var appendedBatches: Int { contents.withLock { $0.appendedBatches } }

    public func load() throws -> BookmarkIndexState {
        contents.withLock { contents in
            contents.isClosed = false
            return contents.state
        }
    }

    public func append(_ changes: [BookmarkChange]) throws {
        try contents.withLock { contents in
            try Self.checkOpen(contents)
            contents.state.apply(changes)
            contents.appendedBatches += 1
        }
    }

    public func compact(_ state: BookmarkIndexState) throws {
        try contents.withLock { contents in
            try Self.checkOpen(contents)
            contents.state = state
        }
    }

    public func reset() throws {
        try contents.withLock { contents in
            try Self.checkOpen(contents)
            contents.state = BookmarkIndexState()
        }
    }

    public func close() throws {
        contents.withLock { $0.isClosed = true }
    }

    private static func checkOpen(_ contents: Contents) throws {
        if contents.isClosed {
            throw BookmarkIndexError(.closed, "The in-memory storage was closed; open a new store on it first.")
        }
    }
}
