@testable import BookmarkSync
import BookmarkIndex
import Foundation
import Testing

/// The engine's record of a list, as the index keeps it: exact, and robust to what it cannot read.
@Suite struct ListSyncRecordTests {
    func metadata(version: Int = 2, _ json: String, stale: Bool = false) throws -> BookmarkIndexMetadata {
        BookmarkIndexMetadata(syncState: try VersionedPayload(version: version, json: Data(json.utf8), isStale: stale))
    }

    /// Version 1 is what the migration from schema 2 moved in: the journal's keys, dates as
    /// seconds since the reference date, in-app records as `[[id, date]]`.
    @Test func version1ReadsAsSchema2WroteIt() throws {
        let record = ListSyncRecord(try metadata(version: 1, #"{"cursor":{"next":"n","started":1.5,"pages":2,"order":-31,"first":-1},"unbookmarked":[[9007199254740993,3.25]],"bookmarked":[[7,4]],"pause":{"until":9,"code":"server","message":"502"}}"#))
        #expect(record.fullWalkPosition == FullWalkPosition(nextPage: "n", startedAt: Date(timeIntervalSinceReferenceDate: 1.5), pagesFetched: 2, nextServerOrder: -31, firstServerOrder: -1))
        #expect(record.unbookmarkedInApp == [9_007_199_254_740_993: Date(timeIntervalSinceReferenceDate: 3.25)], "an ID above 2^53 stays exact")
        #expect(record.bookmarkedInApp == [7: Date(timeIntervalSinceReferenceDate: 4)])
        #expect(record.pause == ListPause(until: Date(timeIntervalSinceReferenceDate: 9), code: "server", message: "502"))
    }

    @Test func aRecordRoundTripsExactly() {
        var record = ListSyncRecord()
        record.fullWalkPosition = FullWalkPosition(nextPage: "https://x/?max_bookmark_id=1", startedAt: Date(timeIntervalSinceReferenceDate: 800_000_000.123456), pagesFetched: 3, nextServerOrder: -(1 << 62) - 1, firstServerOrder: Int64.max, placesRowsAbove: true)
        record.deltaCursor = DeltaCursor(nextPage: "p2", newestAtStart: 42, newRows: 30, startedAt: Date(timeIntervalSinceReferenceDate: -1.5))
        record.unbookmarkedInApp = [Int.max: Date(timeIntervalSinceReferenceDate: 1e9 + 0.1), Int.min: Date(timeIntervalSinceReferenceDate: 0)]
        record.bookmarkedInApp = [3: Date(timeIntervalSinceReferenceDate: 7)]
        record.pause = ListPause(until: Date(timeIntervalSinceReferenceDate: 99), code: "blocked", message: "夏 \"空\" ✨")
        record.pacing = LearnedPacing(savedAt: Date(timeIntervalSinceReferenceDate: 5), interval: 3.6, ceilingInterval: 2.25, ceilingUntil: nil, cooldownUntil: Date(timeIntervalSinceReferenceDate: 305), consecutiveCooldowns: 1, recentTrips: 1, lastTrip: Date(timeIntervalSinceReferenceDate: 5))
        let stored = record.stored(in: BookmarkIndexMetadata())
        #expect(ListSyncRecord(stored) == record)
        #expect(stored.syncState?.version == ListSyncRecord.version)
        #expect(ListSyncRecord().stored(in: stored).syncState == nil, "an empty record stores nothing")
        #expect(record.stored(in: stored) == stored, "encoding is deterministic")
    }

    /// What a page stores, and the record the engine then keeps instead of decoding it: what
    /// reading it back gives, or nothing when a part holds what reading would leave out.
    @Test func storingTellsWhatReadingBackGives() throws {
        var record = ListSyncRecord(try metadata(#"{"bookmarked":[[3,1]],"pacing":{"interval":"fast"}}"#))
        #expect(!record.damagedParts.isEmpty, "the pacing is damaged")
        record.deltaCursor = DeltaCursor(nextPage: "p", newestAtStart: 42, newRows: 3, startedAt: Date(timeIntervalSinceReferenceDate: 1))
        let clean = record.storedAndRead(in: BookmarkIndexMetadata())
        let read = try #require(clean.read)
        #expect(read == ListSyncRecord(clean.metadata), "as reading it back gives it")
        #expect(read.damagedParts.isEmpty && read.bookmarkedInApp == [3: Date(timeIntervalSinceReferenceDate: 1)])

        // A delta whose newest order leaves no room above it is stored, and left out on reading.
        record.deltaCursor?.newestAtStart = Int64.max
        let damaged = record.storedAndRead(in: BookmarkIndexMetadata())
        #expect(damaged.read == nil)
        #expect(ListSyncRecord(damaged.metadata).deltaCursor == nil)
        #expect(damaged.metadata == record.stored(in: BookmarkIndexMetadata()))

        // A newer version's record is left as it is, and nothing is known of what it reads as.
        let newer = try metadata(version: ListSyncRecord.version + 1, #"{"future":true}"#)
        let kept = ListSyncRecord(newer).storedAndRead(in: newer)
        #expect(kept.metadata == newer && kept.read == nil)
        #expect(ListSyncRecord().storedAndRead(in: BookmarkIndexMetadata()).read == nil, "an empty record stores nothing")
    }

    /// A part that cannot be read is left out; the others stay.
    @Test func aDamagedPartLosesOnlyItself() throws {
        let record = ListSyncRecord(try metadata(#"{"unbookmarked":[[7,"x"]],"bookmarked":[[3,1]],"pause":{"until":9,"code":"server","message":"m"},"pacing":{"interval":"fast"},"cursor":{"next":1}}"#))
        #expect(record.unbookmarkedInApp.isEmpty && record.fullWalkPosition == nil && record.pacing == nil)
        #expect(record.bookmarkedInApp == [3: Date(timeIntervalSinceReferenceDate: 1)])
        #expect(record.pause?.code == "server")
    }

    /// A newer version's record is not read, and never overwritten.
    @Test func aNewerRecordIsLeftAsItIs() throws {
        let newer = try metadata(version: ListSyncRecord.version + 1, #"{"future":true}"#)
        var record = ListSyncRecord(newer)
        #expect(record.fullWalkPosition == nil && record.unbookmarkedInApp.isEmpty && record.pause == nil)
        record.unbookmarkedInApp[1] = Date()
        #expect(record.stored(in: newer) == newer)
    }

    /// After a salvage the rows may not be what the cursor says; the pause and what the app
    /// recorded still hold.
    @Test func aStaleRecordKeepsThePauseAndTheAppsRecordsButNotThePositions() throws {
        let record = ListSyncRecord(try metadata(#"{"cursor":{"next":"n","started":1,"pages":2,"order":-31},"delta":{"next":"p","placed":3,"started":1},"unbookmarked":[[7,3]],"pause":{"until":9,"code":"blocked","message":"m"}}"#, stale: true))
        #expect(record.fullWalkPosition == nil && record.deltaCursor == nil)
        #expect(record.unbookmarkedInApp.keys.contains(7))
        #expect(record.pause?.code == "blocked")
    }
}
