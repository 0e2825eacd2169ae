import BookmarkIndex
import Foundation

/// What the machine reads of one list: its metadata, the engine's record in it (decoded), and
/// the two figures of the index it needs (the ends of the list's order, its size).
///
/// Events take these rather than the whole index; the engine builds them with a
/// ``SyncRecordCache``, which decodes a list's record only when the stored bytes changed.
struct ListFacts: Sendable {
    var metadata: BookmarkIndexMetadata
    var record: ListSyncRecord
    var orderBounds: (newest: Int64, oldest: Int64)?
    var count: Int

    init(metadata: BookmarkIndexMetadata = BookmarkIndexMetadata(), record: ListSyncRecord? = nil, orderBounds: (newest: Int64, oldest: Int64)? = nil, count: Int = 0) {
        self.metadata = metadata
        self.record = record ?? ListSyncRecord(metadata)
        self.orderBounds = orderBounds
        self.count = count
    }
}

/// Both lists' ``ListFacts``, as of one revision of the index.
struct AccountFacts: Sendable {
    var publicList: ListFacts
    var privateList: ListFacts
    /// The index's ``BookmarkIndexState/revision`` they were read at.
    var revision: UInt64

    init(publicList: ListFacts = ListFacts(), privateList: ListFacts = ListFacts(), revision: UInt64 = 0) {
        self.publicList = publicList
        self.privateList = privateList
        self.revision = revision
    }

    subscript(restrict: Restrict) -> ListFacts {
        restrict == .public ? publicList : privateList
    }

    /// The facts of `index`, each record decoded afresh (tests; the engine uses a cache).
    init(_ index: BookmarkIndexState) {
        var cache = SyncRecordCache()
        self = cache.facts(of: index)
    }
}

/// Decoded records by the bytes they were decoded from: a list's record is decoded again only
/// when its stored payload changed (a page written, a store reset, another writer).
struct SyncRecordCache: Sendable {
    private var entries: [Restrict: (payload: VersionedPayload?, record: ListSyncRecord)] = [:]

    /// Takes `record` as what `payload`, just written to `restrict`'s list, decodes to.
    mutating func remember(_ record: ListSyncRecord, decodedFrom payload: VersionedPayload?, for restrict: Restrict) {
        // Checked in debug builds, so every test that syncs a page checks it.
        assert({
            var metadata = BookmarkIndexMetadata()
            metadata.syncState = payload
            return ListSyncRecord(metadata) == record
        }(), "a record read back differs from the record written")
        entries[restrict] = (payload, record)
    }

    /// The facts of `index`, decoding only the records whose bytes changed since last time.
    mutating func facts(of index: BookmarkIndexState) -> AccountFacts {
        AccountFacts(publicList: facts(of: .public, in: index), privateList: facts(of: .private, in: index), revision: index.revision)
    }

    private mutating func facts(of restrict: Restrict, in index: BookmarkIndexState) -> ListFacts {
        let metadata = index.metadata(for: restrict)
        let record: ListSyncRecord
        if let entry = entries[restrict], entry.payload == metadata.syncState {
            record = entry.record
        } else {
            record = ListSyncRecord(metadata)
            entries[restrict] = (metadata.syncState, record)
        }
        return ListFacts(
            metadata: metadata, record: record,
            orderBounds: index.serverOrderBounds(in: restrict), count: index.count(in: restrict)
        )
    }
}

/// The newest facts the engine has read. Reads of the store can complete out of order (two of
/// the engine's calls each awaiting the store's state): a read older than one already taken is
/// answered with the newer, so no decision or status is built on an index older than one
/// already used.
struct NewestFacts: Sendable {
    private(set) var facts: AccountFacts?

    /// The newer of `read` and the facts already taken, which it becomes.
    mutating func offer(_ read: AccountFacts) -> AccountFacts {
        if let facts, facts.revision > read.revision { return facts }
        facts = read
        return read
    }
}
