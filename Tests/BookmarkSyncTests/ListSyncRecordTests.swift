@testable import BookmarkSync
import BookmarkIndex
import BookmarkIndexTesting
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

    /// Records with every part present or absent, at the edges of what each holds, written by
    /// the package's writer: each reads back as it was written, from one line of standard JSON;
    /// a date or interval that is not finite stores nothing, as before.
    @Test func everyPartReadsBackAsWritten() throws {
        var random = SeededRandom(seed: 41)
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { random.next() % 3 == 0 ? nil : value() }
        func date() -> Date { Date(timeIntervalSinceReferenceDate: Double(Int64(bitPattern: random.next()) % 4_000_000_000) / 7) }
        func int() -> Int { Int(random.next() % 1_000_000) * (random.next() % 2 == 0 ? 1 : -1) }
        func ground() -> KnownGround { random.next() % 2 == 0 ? .lastPage : .bookmarkID(int()) }
        let texts = ["", "p2", "https://app-api.pixiv.net/v1/user/bookmarks/illust?max_bookmark_id=9&restrict=public", "夏 \"空\" \\ ✨\n\u{1}"]
        for _ in 0..<300 {
            var record = ListSyncRecord()
            record.fullWalkPosition = maybe({
                var cursor = FullWalkPosition(nextPage: texts[Int(random.next() % 4)], startedAt: date(), pagesFetched: abs(int()),
                                              nextServerOrder: Int64(int()) << 20, firstServerOrder: maybe(Int64(int())), placesRowsAbove: random.next() % 2 == 0)
                cursor.groundAfterFirstPage = maybe(ground())
                return cursor
            }())
            record.deltaCursor = maybe(DeltaCursor(nextPage: texts[Int(random.next() % 4)], newestAtStart: maybe(Int64(int())), newRows: abs(int()),
                                                   startedAt: date(), groundAfterFirstPage: maybe(ground())))
            record.knownGround = maybe(ground())
            for _ in 0..<random.next() % 4 { record.unbookmarkedInApp[int()] = date() }
            for _ in 0..<random.next() % 4 { record.bookmarkedInApp[Int.max - Int(random.next() % 9)] = date() }
            record.pause = maybe(ListPause(until: date(), code: "server", message: texts[Int(random.next() % 4)]))
            record.pacing = maybe(LearnedPacing(savedAt: maybe(date()), interval: Double(random.next() % 10_000) / 64 + 0.01, ceilingInterval: maybe(2.25),
                                                ceilingUntil: maybe(date()), cooldownUntil: maybe(date()), consecutiveCooldowns: Int(random.next() % 9),
                                                recentTrips: Int(random.next() % 9), lastTrip: maybe(date())))
            record.dailySpend = maybe(DailyRequestLedger(counts: Dictionary(uniqueKeysWithValues: (0..<random.next() % 5).map { (Int64(900_000 + $0 * 3), Int(random.next() % 40)) })))
            record.lastKnownTotal = maybe(KnownTotal(count: abs(int()), at: date()))
            record.indexingSwitchedOff = random.next() % 5 == 0
            #expect(record.readsBackAsItIs)

            let stored = record.stored(in: BookmarkIndexMetadata())
            let json = try #require(stored.syncState?.json, "\(record)")
            #expect(!json.contains(0x0A))
            #expect(ListSyncRecord(stored) == record, "\(String(decoding: json, as: UTF8.self))")
            #expect(try JSONSerialization.jsonObject(with: json) is [String: Any], "standard JSON")
        }
        var record = ListSyncRecord()
        record.bookmarkedInApp[1] = Date(timeIntervalSinceReferenceDate: .infinity)
        #expect(record.stored(in: BookmarkIndexMetadata()).syncState == nil, "JSON has no infinity: nothing is stored")
        record.bookmarkedInApp = [:]
        record.pacing = LearnedPacing(savedAt: nil, interval: .nan, ceilingInterval: nil, ceilingUntil: nil, cooldownUntil: nil, consecutiveCooldowns: 0, recentTrips: 0, lastTrip: nil)
        #expect(record.stored(in: BookmarkIndexMetadata()).syncState == nil)
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
