import Foundation

/// What the index remembers about syncing one list: when it was last synced, and the sync
/// engine's own record of the list, which the index keeps without reading it.
public struct BookmarkIndexMetadata: Sendable, Hashable, Codable {
    /// The schema version of the stored records this code writes: 5, in which an illust keeps
    /// its view count (see the migrations in the "Journal format" article).
    public static let currentSchemaVersion = 5

    /// When the last complete full walk of the list finished.
    public var lastFullSync: Date?
    /// When the last delta sync finished.
    public var lastDeltaSync: Date?
    /// The schema version the metadata was first written with. Updated copies keep it, and a
    /// migration leaves it as it was: a list whose metadata a schema-1 library wrote says 1.
    public var schemaVersion: Int
    /// The sync engine's record of the list (a walk's cursor, tombstones, a pause, the learned
    /// pacing), stored as the engine wrote it; `nil` when it has none. The index never reads
    /// it, but marks it ``VersionedPayload/isStale`` when it loses rows (a salvage).
    public var syncState: VersionedPayload?

    /// Creates metadata; all dates default to "never".
    public init(
        lastFullSync: Date? = nil,
        lastDeltaSync: Date? = nil,
        schemaVersion: Int = BookmarkIndexMetadata.currentSchemaVersion,
        syncState: VersionedPayload? = nil
    ) {
        self.lastFullSync = lastFullSync
        self.lastDeltaSync = lastDeltaSync
        self.schemaVersion = schemaVersion
        self.syncState = syncState
    }
}
