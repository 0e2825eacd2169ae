/// Where a ``BookmarksIndexStore`` keeps its index durable: the pluggable storage seam.
///
/// The store calls these methods from its own actor, one at a time; an implementation never
/// sees two calls at once from the same store. Two implementations ship: ``InMemoryStorage``
/// for tests and ephemeral indexes, and the journal for the store opened on a directory.
public protocol BookmarkStorage: Sendable {
    /// Reads everything stored. Called once, when the store opens.
    func load() throws -> BookmarkIndexState

    /// Makes one batch of changes durable. When this returns, the batch survives a crash;
    /// when it throws, none of it is stored.
    func append(_ changes: [BookmarkChange]) throws

    /// Whether the storage would like ``compact(_:)`` to be called now (for example, a journal
    /// that has grown past its threshold). The store asks after every append.
    var wantsCompaction: Bool { get }

    /// Replaces what is stored by `state`, which is what replaying everything stored gives.
    func compact(_ state: BookmarkIndexState) throws

    /// Deletes everything stored.
    func reset() throws

    /// Releases the storage's resources (files, locks). Later calls fail.
    func close() throws
}

extension BookmarkStorage {
    public var wantsCompaction: Bool { false }
}
