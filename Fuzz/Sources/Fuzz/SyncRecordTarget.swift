import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation

/// A list's stored sync record of any content driving an engine: the record is read (a part
/// it cannot use is left out), both lists sync over a fake source on a test clock, and the
/// engine settles without trapping.
///
/// Input: a byte of options (the record's version, when the list last synced in full, which
/// list holds the record), then the record's JSON.
struct SyncRecordTarget: FuzzTarget {
    static let name = "record"
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    init() {}

    func run(_ input: [UInt8]) {
        var reader = InputReader(input)
        let options = reader.byte()
        let json = Data(reader.rest())
        guard let payload = try? VersionedPayload(version: 1 + Int(options & 1), json: json) else { return }
        let lastFullSync: Date? = [nil, Self.now.addingTimeInterval(-3_600), Self.now.addingTimeInterval(-30 * 86_400), Date.distantPast][Int(options >> 1) & 3]
        let restrict: Restrict = options & 8 == 0 ? .public : .private
        let metadata = BookmarkIndexMetadata(lastFullSync: lastFullSync, lastDeltaSync: nil, syncState: payload)
        _ = ListSyncRecord(metadata)
        do {
            try blocking {
                let clock = TestClock(now: Self.now)
                let source = FakeBookmarkSource(clock: clock, latency: 0.05)
                let works = (1...70).map { BookmarkedIllustSnapshot(id: $0, title: "work \($0)", tags: [ArtworkTag(name: "t\($0 % 4)")]) }
                source.add(Array(works[0..<45]), to: .public)
                source.add(Array(works[45...]), to: .private)
                let store = try await BookmarksIndexStore(storage: InMemoryStorage())
                // The index knows the older works, in Pixiv's order, as a sync would have left them.
                try await store.apply(works[0..<35].enumerated().map { position, work in
                    .upsert(IndexedBookmark(illust: work, restrict: .public, serverOrder: Int64(position), firstIndexedAt: Self.now, lastSeenAt: Self.now.addingTimeInterval(-7_200)))
                } + [.setMetadata(metadata, for: restrict)])
                let engine = BookmarkSyncEngine(store: store, source: source, clock: clock)
                await engine.startAutoSync(for: .public)
                await engine.startAutoSync(for: .private)
                _ = await engine.currentStatus()
                guard await clock.runUntilIdle(engine, maxSteps: 200_000) else { broken("the engine never settled") }
                _ = await engine.currentStatus()
                _ = ListSyncRecord(await store.metadata(for: restrict))
            }
        } catch {
            broken("setting up the engine failed: \(error)")
        }
    }

    static func seeds() throws -> [[UInt8]] {
        let records = [
            "{}",
            #"{"cursor":{"next":"1000","started":800000000,"pages":1,"order":-9223372036854775808,"above":true}}"#,
            #"{"cursor":{"next":"1000","started":800000000,"pages":3,"order":100,"first":130,"above":true},"unbookmarked":[[3,800000000],[4,1e300]]}"#,
            #"{"delta":{"next":"30","newest":34,"placed":2,"started":800000000},"bookmarked":[[50,800000000]]}"#,
            #"{"delta":{"next":"30","newest":9223372036854775000,"placed":9223372036854775807,"started":800000000}}"#,
            #"{"pause":{"until":1e12,"code":"rateLimited","message":"Rate Limit"}}"#,
            #"{"pacing":{"savedAt":800000000,"interval":4,"ceilingInterval":6,"ceilingUntil":900000000,"cooldownUntil":900000000,"consecutiveCooldowns":9223372036854775807,"recentTrips":9223372036854775807,"lastTrip":800000000}}"#,
        ]
        return records.enumerated().map { number, record in [UInt8(number * 3 % 16)] + Array(record.utf8) }
    }
}
