import BookmarkIndex
import BookmarkJSON
import Foundation

// The record written with the package's JSON writer, in the shape `ListSyncRecord.Coded`
// reads: each object's keys in sorted order, dates as seconds since the reference date, in-app
// records as `[[illust ID, date], …]` sorted by ID. `JSONEncoder` was 6.6–7.5 % (two profiles)
// of what a sync's engine, client and journal spent a page (the record is written with every
// page); the reader stays `JSONDecoder`'s, which tells a damaged part from the others.

extension ListSyncRecord {
    /// The record's JSON, or `nil` when a date or an interval in it is not finite (JSON has no
    /// such numbers; as when `JSONEncoder` refused such a record, nothing is stored).
    func json() -> Data? {
        var writer = RecordWriter(json: JSONWriter(capacity: 512))
        writer.object { object in
            if !bookmarkedInApp.isEmpty { object.member("bookmarked") { $0.pairs(bookmarkedInApp) } }
            if let cursor = fullWalkPosition { object.member("cursor") { $0.cursor(cursor) } }
            if let delta = deltaCursor { object.member("delta") { $0.delta(delta) } }
            if let ground = knownGround { object.member("ground") { $0.ground(ground) } }
            if indexingSwitchedOff { object.member("off") { $0.json.bool(true) } }
            if let pacing { object.member("pacing") { $0.pacing(pacing) } }
            if let pause { object.member("pause") { $0.pause(pause) } }
            if let dailySpend { object.member("spend") { $0.spend(dailySpend) } }
            if let total = lastKnownTotal { object.member("total") { $0.total(total) } }
            if !unbookmarkedInApp.isEmpty { object.member("unbookmarked") { $0.pairs(unbookmarkedInApp) } }
        }
        guard writer.allFinite else { return nil }
        return writer.json.withUnsafeBytes { Data($0) }
    }
}

/// A JSON writer for the record's parts.
private struct RecordWriter {
    var json = JSONWriter()
    /// Whether every number written was finite.
    var allFinite = true

    /// An object whose members `body` writes.
    mutating func object(_ body: (inout Members) -> Void) {
        json.byte(UInt8(ascii: "{"))
        // The writer moves into the members and back, so its buffer is never shared (a copy
        // of it would make each write copy the buffer).
        var members = Members(writer: RecordWriter())
        swap(&members.writer, &self)
        body(&members)
        swap(&members.writer, &self)
        json.byte(UInt8(ascii: "}"))
    }

    struct Members {
        var writer: RecordWriter
        var count = 0

        /// `"key":` and the value `body` writes; members must come in sorted order.
        mutating func member(_ key: StaticString, _ body: (inout RecordWriter) -> Void) {
            writer.json.key(key, afterComma: count > 0)
            count += 1
            body(&writer)
        }
    }

    mutating func number(_ value: Double) {
        guard value.isFinite else {
            allFinite = false
            json.int(0)
            return
        }
        json.double(value)
    }

    mutating func date(_ date: Date) { number(date.timeIntervalSinceReferenceDate) }

    mutating func pairs(_ records: [Int: Date]) {
        json.byte(UInt8(ascii: "["))
        for (index, id) in records.keys.sorted().enumerated() {
            if index > 0 { json.byte(UInt8(ascii: ",")) }
            json.byte(UInt8(ascii: "["))
            json.int(id)
            json.byte(UInt8(ascii: ","))
            date(records[id]!)
            json.byte(UInt8(ascii: "]"))
        }
        json.byte(UInt8(ascii: "]"))
    }

    mutating func cursor(_ cursor: FullWalkPosition) {
        object { object in
            if cursor.placesRowsAbove { object.member("above") { $0.json.bool(true) } }
            if let first = cursor.firstServerOrder { object.member("first") { $0.json.int(first) } }
            if let ground = cursor.groundAfterFirstPage { object.member("ground") { $0.ground(ground) } }
            object.member("next") { $0.json.string(cursor.nextPage) }
            object.member("order") { $0.json.int(cursor.nextServerOrder) }
            object.member("pages") { $0.json.int(cursor.pagesFetched) }
            object.member("started") { $0.date(cursor.startedAt) }
        }
    }

    mutating func delta(_ delta: DeltaCursor) {
        object { object in
            if let ground = delta.groundAfterFirstPage { object.member("ground") { $0.ground(ground) } }
            if let newest = delta.newestAtStart { object.member("newest") { $0.json.int(newest) } }
            object.member("next") { $0.json.string(delta.nextPage) }
            object.member("placed") { $0.json.int(delta.newRows) }
            object.member("started") { $0.date(delta.startedAt) }
        }
    }

    mutating func ground(_ ground: KnownGround) {
        object { object in
            switch ground {
            case .bookmarkID(let id): object.member("id") { $0.json.int(id) }
            case .lastPage: object.member("last") { $0.json.bool(true) }
            }
        }
    }

    mutating func pacing(_ pacing: LearnedPacing) {
        object { object in
            if let ceiling = pacing.ceilingInterval { object.member("ceilingInterval") { $0.number(ceiling) } }
            if let until = pacing.ceilingUntil { object.member("ceilingUntil") { $0.date(until) } }
            object.member("consecutiveCooldowns") { $0.json.int(pacing.consecutiveCooldowns) }
            if let until = pacing.cooldownUntil { object.member("cooldownUntil") { $0.date(until) } }
            object.member("interval") { $0.number(pacing.interval) }
            if let trip = pacing.lastTrip { object.member("lastTrip") { $0.date(trip) } }
            object.member("recentTrips") { $0.json.int(pacing.recentTrips) }
            if let saved = pacing.savedAt { object.member("savedAt") { $0.date(saved) } }
        }
    }

    mutating func pause(_ pause: ListPause) {
        object { object in
            object.member("code") { $0.json.string(pause.code) }
            object.member("message") { $0.json.string(pause.message) }
            object.member("until") { $0.date(pause.until) }
        }
    }

    mutating func spend(_ ledger: DailyRequestLedger) {
        let (start, counts) = ledger.span
        object { object in
            object.member("counts") { writer in
                writer.json.byte(UInt8(ascii: "["))
                for (index, count) in counts.enumerated() {
                    if index > 0 { writer.json.byte(UInt8(ascii: ",")) }
                    writer.json.int(count)
                }
                writer.json.byte(UInt8(ascii: "]"))
            }
            object.member("start") { $0.json.int(start) }
        }
    }

    mutating func total(_ total: KnownTotal) {
        object { object in
            object.member("at") { $0.date(total.at) }
            object.member("count") { $0.json.int(total.count) }
        }
    }
}
