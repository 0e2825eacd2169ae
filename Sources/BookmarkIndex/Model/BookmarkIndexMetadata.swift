import Foundation

/// What the index remembers about syncing one list.
public struct BookmarkIndexMetadata: Sendable, Hashable, Codable {
    /// The schema version of the stored records this code writes: 2, which records why works
    /// vanished (see ``JournalMigrationPlan/production``).
    public static let currentSchemaVersion = 2

    /// When the last complete full walk of the list finished.
    public var lastFullSync: Date?
    /// When the last delta sync finished.
    public var lastDeltaSync: Date?
    /// Where an interrupted full walk resumes; `nil` when no walk is in progress.
    public var fullSyncCursor: FullSyncCursor?
    /// The schema version the metadata was first written with. Updated copies keep it, and a
    /// migration leaves it as it was: a list whose metadata a schema-1 library wrote says 1.
    public var schemaVersion: Int
    /// Works the app unbookmarked, by illust ID, with when: the sync engine's tombstones. A
    /// fetched page does not re-add them until its tombstone lifetime has passed, or a full walk
    /// begun later completes. Kept with the index, so a restart does not forget them.
    public var unbookmarkedInApp: [Int: Date]
    /// Works the app bookmarked since the list's last complete sync, by illust ID, with when:
    /// a delta does not take them for ground a sync already confirmed.
    public var bookmarkedInApp: [Int: Date]
    /// A pause the sync engine put the list in (after repeated failures, or a server's long
    /// `Retry-After`), kept with the index so that a process started again during it waits it
    /// out too; `nil` when none was recorded since the last page synced.
    public var pause: ListPause?

    /// Creates metadata; all dates default to "never".
    public init(
        lastFullSync: Date? = nil,
        lastDeltaSync: Date? = nil,
        fullSyncCursor: FullSyncCursor? = nil,
        schemaVersion: Int = BookmarkIndexMetadata.currentSchemaVersion,
        unbookmarkedInApp: [Int: Date] = [:],
        bookmarkedInApp: [Int: Date] = [:],
        pause: ListPause? = nil
    ) {
        self.lastFullSync = lastFullSync
        self.lastDeltaSync = lastDeltaSync
        self.fullSyncCursor = fullSyncCursor
        self.schemaVersion = schemaVersion
        self.unbookmarkedInApp = unbookmarkedInApp
        self.bookmarkedInApp = bookmarkedInApp
        self.pause = pause
    }

    private enum CodingKeys: String, CodingKey {
        case lastFullSync, lastDeltaSync, fullSyncCursor, schemaVersion, unbookmarkedInApp, bookmarkedInApp, pause
    }

    /// Decodes metadata; the in-app records, which older encodings lack, default to none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        lastFullSync = try container.decodeIfPresent(Date.self, forKey: .lastFullSync)
        lastDeltaSync = try container.decodeIfPresent(Date.self, forKey: .lastDeltaSync)
        fullSyncCursor = try container.decodeIfPresent(FullSyncCursor.self, forKey: .fullSyncCursor)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        unbookmarkedInApp = try container.decodeIfPresent([Int: Date].self, forKey: .unbookmarkedInApp) ?? [:]
        bookmarkedInApp = try container.decodeIfPresent([Int: Date].self, forKey: .bookmarkedInApp) ?? [:]
        pause = try container.decodeIfPresent(ListPause.self, forKey: .pause)
    }
}

/// Until when a list's syncing is paused, and why, as the sync engine records it.
public struct ListPause: Sendable, Hashable, Codable {
    /// When the pause ends.
    public var until: Date
    /// The code of the error that caused it (the sync engine's error code, by name).
    public var code: String
    /// What went wrong, as the error said.
    public var message: String

    /// Creates a pause record.
    public init(until: Date, code: String, message: String) {
        self.until = until
        self.code = code
        self.message = message
    }
}

/// The saved position of a full walk, so it resumes after a failure or a restart instead of
/// starting over.
public struct FullSyncCursor: Sendable, Hashable, Codable {
    /// The source's token for the next page to fetch (for Pixiv, the `next_url` as given).
    public var nextPage: String
    /// When the walk began; rows not seen since then are pruned when it completes.
    public var startedAt: Date
    /// Pages fetched so far.
    public var pagesFetched: Int
    /// The ``IndexedBookmark/serverOrder`` the next row of the walk gets.
    public var nextServerOrder: Int64
    /// The order the walk's first row got. Every row the walk writes is at or below it and
    /// every row it has not reached is above it, so a row at or below it was seen by this walk
    /// whatever the clock did; `nil` in cursors saved before it was recorded.
    public var firstServerOrder: Int64?

    /// Creates a cursor.
    public init(nextPage: String, startedAt: Date, pagesFetched: Int, nextServerOrder: Int64, firstServerOrder: Int64? = nil) {
        self.nextPage = nextPage
        self.startedAt = startedAt
        self.pagesFetched = pagesFetched
        self.nextServerOrder = nextServerOrder
        self.firstServerOrder = firstServerOrder
    }
}
