import BookmarkIndex
import Foundation

/// What the sync engine keeps of one list between runs: BookmarkSync's own record, which the
/// index stores per list as opaque, versioned data (`BookmarkIndexMetadata.syncState`).
///
/// A full walk's position, an interrupted delta's place, the app's tombstones and recorded
/// bookmarks, a pause, and the account's learned pacing (kept in both lists' records, so
/// either restores it). Read it to show what a list's sync has saved
/// (``init(_:)``); only the engine writes it.
///
/// Encoded as JSON with the journal's key names and dates as seconds since Foundation's
/// reference date. Version 1 is what schema-2 journals held in the metadata itself (cursor,
/// tombstones, in-app bookmarks, pause), moved here by the migration to schema 3; version 2
/// adds the delta's place and the learned pacing.
public struct ListSyncRecord: Sendable, Hashable {
    /// The version this code writes.
    public static let version = 2

    /// Where an interrupted full walk resumes; `nil` when no walk is in progress.
    public internal(set) var fullWalkPosition: FullWalkPosition?
    /// Where an interrupted delta goes on.
    var deltaCursor: DeltaCursor?
    /// Where the next delta may stop: what the last complete sync proved; `nil` before the
    /// first complete sync of this version (the next sync then walks the list in full).
    var knownGround: KnownGround?
    /// Works the app unbookmarked, by illust ID, with when: the engine's tombstones.
    public internal(set) var unbookmarkedInApp: [Int: Date] = [:]
    /// Works the app bookmarked since the list's last complete sync, by illust ID, with when.
    public internal(set) var bookmarkedInApp: [Int: Date] = [:]
    /// A pause the engine put the list in, so a process started during it waits it out.
    public internal(set) var pause: ListPause?
    /// The parts of the stored record that were left out, each with why: a part that could not
    /// be decoded, or that holds values no engine writes (an order out of range, a page count
    /// below zero, a date that is not finite). Empty for a sound record. The engine syncs the
    /// list as if those parts had never been saved, which is always safe, and writes the record
    /// again without them; `bookmarks status` shows them.
    public internal(set) var damagedParts: [String] = []
    /// The account's pacing as learned from rate-limit answers.
    var pacing: LearnedPacing?
    /// The account's requests of the last day, as of the last save (kept in both lists'
    /// records, which are merged: each list's copy holds every request up to its save).
    var dailySpend: DailyRequestLedger?
    /// The list's total as Pixiv last told it, and when: what a walk will cost.
    var lastKnownTotal: KnownTotal?
    /// The app switched indexing off (the engine's kill switch), kept in both lists' records so
    /// that a relaunch keeps it.
    public internal(set) var indexingSwitchedOff = false

    /// When the account's rate-limit cooldown that this record saw ends (`nil`: none recorded);
    /// no request of either list goes out before then.
    public var cooldownUntil: Date? { pacing?.cooldownUntil }
    /// The record in the metadata is a newer version's: it is left as it is, never overwritten.
    private var isNewer = false

    init() {}

    /// The record kept in `metadata`; an empty one when there is none.
    ///
    /// Each part is read on its own: a part that cannot be read, or holds values no engine
    /// writes, is left out (see ``damagedParts``), the others kept. A record of a newer version than this code's is not read, and this code
    /// never overwrites it (the engine leaves it as it is): the engine then syncs the list as if
    /// afresh, which is always safe since the server is authoritative. A record the index
    /// marked stale (it lost rows since) keeps the app's tombstones and bookmarks and the
    /// pause, but not the walk's position or the delta's place: the next syncs start afresh.
    public init(_ metadata: BookmarkIndexMetadata) {
        guard let state = metadata.syncState else { return }
        guard state.version <= Self.version else {
            isNewer = true
            return
        }
        guard let decoded = try? JSONDecoder().decode(Coded.self, from: state.json) else {
            damagedParts = ["the whole record: not a JSON object"]
            return
        }
        self = decoded.record
        if state.isStale {
            fullWalkPosition = nil
            deltaCursor = nil
            // The index lost rows: no ground below them is proved any more.
            knownGround = nil
        }
    }

    /// `metadata` with this record in it (unchanged when it holds a newer version's record).
    func stored(in metadata: BookmarkIndexMetadata) -> BookmarkIndexMetadata {
        storedAndRead(in: metadata).metadata
    }

    /// `metadata` with this record in it, and the record as reading it back from there gives,
    /// when that is known without reading it (`nil` when `metadata` holds a newer version's
    /// record, left as it is, or when a part holds what reading leaves out). What was read of
    /// damaged parts is gone: parts are written whole.
    func storedAndRead(in metadata: BookmarkIndexMetadata) -> (metadata: BookmarkIndexMetadata, read: ListSyncRecord?) {
        guard !isNewer else { return (metadata, nil) }
        let stored = encoded(in: metadata)
        guard readsBackAsItIs, stored.syncState != nil else { return (stored, nil) }
        var read = self
        read.damagedParts = []
        return (stored, read)
    }

    private func encoded(in metadata: BookmarkIndexMetadata) -> BookmarkIndexMetadata {
        var metadata = metadata
        // The writer writes one line of valid JSON, so the payload's check cannot fail.
        let data = json() ?? Data("{}".utf8)
        metadata.syncState = data == Data("{}".utf8) ? nil : try? VersionedPayload(version: Self.version, json: data)
        return metadata
    }

    /// The JSON shape, key by key, as read (``json()`` writes it).
    private struct Coded: Decodable {
        var record: ListSyncRecord

        private enum Key: String, CodingKey {
            case cursor, delta, unbookmarked, bookmarked, pause, pacing, ground, spend, total, off
        }

        /// Each part on its own: one that cannot be read, or holds values no engine writes, is
        /// left out with the reason, the others kept.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            record = ListSyncRecord()
            record.fullWalkPosition = part(.cursor, of: CursorCoding.self, in: container) { $0.cursor.problem }?.cursor
            record.deltaCursor = part(.delta, of: DeltaCursor.self, in: container) { $0.problem }
            record.unbookmarkedInApp = records(.unbookmarked, in: container)
            record.bookmarkedInApp = records(.bookmarked, in: container)
            record.pause = part(.pause, of: PauseCoding.self, in: container) { $0.pause.problem }?.pause
            record.pacing = part(.pacing, of: LearnedPacing.self, in: container) { $0.problem }
            record.knownGround = part(.ground, of: KnownGround.self, in: container) { _ in nil }
            record.dailySpend = part(.spend, of: DailyRequestLedger.self, in: container) { _ in nil }
            record.lastKnownTotal = part(.total, of: KnownTotal.self, in: container) { $0.count < 0 ? "a total below zero" : nil }
            record.indexingSwitchedOff = part(.off, of: Bool.self, in: container) { _ in nil } ?? false
        }

        /// The part under `key`; `nil` when there is none, or when it cannot be read or
        /// `problem` finds fault with it (the reason then goes to ``damagedParts``).
        private mutating func part<Part: Decodable>(
            _ key: Key, of type: Part.Type, in container: KeyedDecodingContainer<Key>, problem: (Part) -> String?
        ) -> Part? {
            do {
                guard let part = try container.decodeIfPresent(Part.self, forKey: key) else { return nil }
                if let problem = problem(part) {
                    record.damagedParts.append("\(key.rawValue): \(problem)")
                    return nil
                }
                return part
            } catch {
                record.damagedParts.append("\(key.rawValue): unreadable")
                return nil
            }
        }

        /// The in-app records under `key`; a record that cannot be read, or whose date is not
        /// finite, is left out.
        private mutating func records(_ key: Key, in container: KeyedDecodingContainer<Key>) -> [Int: Date] {
            guard let pairs = part(key, of: [InAppRecord?].self, in: container, problem: { _ in nil }) else { return [:] }
            var records: [Int: Date] = [:]
            var damaged = pairs.count
            for case let pair? in pairs where pair.date.timeIntervalSinceReferenceDate.isFinite {
                records[pair.illustID] = pair.date
                damaged -= 1
            }
            if damaged > 0 { record.damagedParts.append("\(key.rawValue): \(damaged) of \(pairs.count) records unreadable") }
            return records
        }
    }

    /// `[illust ID, date]`: the ID an exact integer, the date seconds since the reference date.
    private struct InAppRecord: Decodable {
        var illustID: Int
        var date: Date

        init(from decoder: any Decoder) throws {
            var pair = try decoder.unkeyedContainer()
            illustID = try pair.decode(Int.self)
            date = Date(timeIntervalSinceReferenceDate: try pair.decode(Double.self))
            guard pair.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: pair, debugDescription: "an in-app record is [illust ID, date]")
            }
        }
    }

    private struct CursorCoding: Decodable {
        var next: String
        var started: Date
        var pages: Int
        var order: Int64
        var first: Int64?
        /// Version 2: the walk places its rows above the ones it has not seen.
        var above: Bool?
        /// The known ground the walk leaves behind (from its first page).
        var ground: KnownGround?

        var cursor: FullWalkPosition {
            var cursor = FullWalkPosition(
                nextPage: next, startedAt: started, pagesFetched: pages, nextServerOrder: order,
                firstServerOrder: first, placesRowsAbove: above ?? false
            )
            cursor.groundAfterFirstPage = ground
            return cursor
        }
    }

    private struct PauseCoding: Decodable {
        var until: Date
        var code: String
        var message: String

        var pause: ListPause { ListPause(until: until, code: code, message: message) }
    }
}
