@testable import BookmarkSync
import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
import Foundation
import Testing

/// Numbers from the disk or the network at the ends of their types (issue 26): a stored sync
/// record, Pixiv's total, a row's order. Each of these trapped; now a stored part that holds one
/// is left out and named in `damagedParts`, and the arithmetic saturates.
@Suite struct BadNumbersTests {
    /// One part of a stored record holding a number no engine writes.
    struct BadPart: Sendable, CustomTestStringConvertible {
        var name: String
        /// The record's key: "cursor", "delta" or "pacing".
        var part: String
        /// What `damagedParts` says of it, after "<part>: ".
        var reason: String
        /// The member, as `"key":{…}`, for a store whose clock reads `now` (seconds since the
        /// reference date).
        var json: @Sendable (_ now: Double) -> String

        var testDescription: String { name }
    }

    static let started = 800_000_000
    static let badParts: [BadPart] = [
        BadPart(name: "cursor order Int64.min", part: "cursor", reason: "next order") { _ in
            #""cursor":{"next":"1000","started":\#(started),"pages":1,"order":-9223372036854775808,"above":true}"#
        },
        BadPart(name: "cursor pages Int.min", part: "cursor", reason: "pages fetched") { _ in
            #""cursor":{"next":"1000","started":\#(started),"pages":-9223372036854775808,"order":-31,"above":true}"#
        },
        BadPart(name: "cursor pages Int.max", part: "cursor", reason: "pages fetched") { _ in
            #""cursor":{"next":"1000","started":\#(started),"pages":9223372036854775807,"order":-31,"above":true}"#
        },
        BadPart(name: "delta newest above Int64.max - 2^32", part: "delta", reason: "newest order") { _ in
            #""delta":{"next":"1000","newest":\#(Int64.max - ServerOrder.deltaSpan + 1),"placed":0,"started":\#(started)}"#
        },
        BadPart(name: "delta newest Int64.max", part: "delta", reason: "newest order") { _ in
            #""delta":{"next":"1000","newest":9223372036854775807,"placed":0,"started":\#(started)}"#
        },
        BadPart(name: "delta placed Int.max", part: "delta", reason: "rows placed") { _ in
            #""delta":{"next":"1000","newest":0,"placed":9223372036854775807,"started":\#(started)}"#
        },
        BadPart(name: "pacing consecutiveCooldowns Int.max", part: "pacing", reason: "consecutive cooldowns") { now in
            #""pacing":{"savedAt":\#(now - 60),"interval":3.6,"consecutiveCooldowns":9223372036854775807,"recentTrips":1,"lastTrip":\#(now - 60)}"#
        },
        BadPart(name: "pacing recentTrips Int.max", part: "pacing", reason: "recent trips") { now in
            #""pacing":{"savedAt":\#(now - 60),"interval":3.6,"consecutiveCooldowns":1,"recentTrips":9223372036854775807,"lastTrip":\#(now - 60)}"#
        },
    ]

    /// Sound versions of each part, to check that the others are kept.
    static let goodParts = [
        "cursor": #""cursor":{"next":"n","started":1,"pages":2,"order":-31,"above":true}"#,
        "delta": #""delta":{"next":"p","newest":42,"placed":3,"started":1}"#,
        "pacing": #""pacing":{"savedAt":5,"interval":3.6,"consecutiveCooldowns":1,"recentTrips":1,"lastTrip":5}"#,
    ]
    static let tombstone = #""unbookmarked":[[999999,6]]"#

    static func metadata(_ members: [String]) throws -> BookmarkIndexMetadata {
        let json = "{" + members.joined(separator: ",") + "}"
        return BookmarkIndexMetadata(syncState: try VersionedPayload(version: 2, json: Data(json.utf8)))
    }

    // MARK: (a) The record leaves the part out

    @Test(arguments: badParts)
    func aPartHoldingABadNumberIsLeftOutAndNamed(_ bad: BadPart) throws {
        let others = Self.goodParts.filter { $0.key != bad.part }.map(\.value)
        let pause = #""pause":{"until":9,"code":"server","message":"m"}"#
        let record = ListSyncRecord(try Self.metadata([bad.json(1_000)] + others + [Self.tombstone, pause]))
        #expect(record.damagedParts.count == 1, "\(record.damagedParts)")
        let damage = try #require(record.damagedParts.first)
        #expect(damage.hasPrefix("\(bad.part): "), "\(damage)")
        #expect(damage.contains(bad.reason), "\(damage)")
        #expect((record.fullWalkPosition == nil) == (bad.part == "cursor"))
        #expect((record.deltaCursor == nil) == (bad.part == "delta"))
        #expect((record.pacing == nil) == (bad.part == "pacing"))
        #expect(record.unbookmarkedInApp == [999_999: Date(timeIntervalSinceReferenceDate: 6)])
        #expect(record.pause?.code == "server")
        if bad.part != "cursor" {
            #expect(record.fullWalkPosition == FullWalkPosition(nextPage: "n", startedAt: Date(timeIntervalSinceReferenceDate: 1), pagesFetched: 2, nextServerOrder: -31, placesRowsAbove: true))
        }
        if bad.part != "delta" {
            #expect(record.deltaCursor == DeltaCursor(nextPage: "p", newestAtStart: 42, newRows: 3, startedAt: Date(timeIntervalSinceReferenceDate: 1)))
        }
        if bad.part != "pacing" { #expect(record.pacing?.consecutiveCooldowns == 1) }

        // Written again, the record holds only what was kept, and no damage.
        let rewritten = ListSyncRecord(record.stored(in: BookmarkIndexMetadata()))
        #expect(rewritten.damagedParts.isEmpty)
        #expect(rewritten.fullWalkPosition == record.fullWalkPosition && rewritten.deltaCursor == record.deltaCursor && rewritten.pacing == record.pacing)
    }

    @Test func everyDamagedPartIsNamedInOrder() throws {
        let record = ListSyncRecord(try Self.metadata([Self.badParts[0].json(0), Self.badParts[5].json(0), Self.badParts[6].json(0), Self.tombstone]))
        #expect(record.damagedParts.map { $0.prefix { $0 != ":" } } == ["cursor", "delta", "pacing"], "\(record.damagedParts)")
        #expect(record.fullWalkPosition == nil && record.deltaCursor == nil && record.pacing == nil)
        #expect(record.unbookmarkedInApp.keys.sorted() == [999_999])
        #expect(ListSyncRecord(try Self.metadata([Self.goodParts["cursor"]!, Self.tombstone])).damagedParts.isEmpty)
    }

    // MARK: (b) An engine given such a record

    /// A store whose public list was synced, then given the record, as a relaunch reads it: the
    /// next sync (with a rate-limit answer on its first request, which counts cooldowns and trips)
    /// completes, ends equal to the source, and stores the record without the damage.
    @Test(arguments: badParts)
    func anEngineGivenTheRecordSyncsToCompletion(_ bad: BadPart) async throws {
        let h = try await Harness()
        await h.syncInFull(publicCount: 50)
        await h.clock.advance(by: 120)
        var metadata = await h.store.metadata(for: .public)
        metadata.syncState = try Self.metadata([bad.json(h.clock.now.timeIntervalSinceReferenceDate), Self.tombstone]).syncState
        try await h.store.setMetadata(metadata, for: .public)
        #expect(ListSyncRecord(await h.store.metadata(for: .public)).damagedParts.count == 1)
        h.source.add(illusts(1_000, count: 40), to: .public)
        h.source.remove(illustID: 3, from: .public)

        let relaunched = try await h.restarted()
        h.source.failNext(BookmarkSyncError(.rateLimited, "429 Too Many Requests"))
        #expect(await relaunched.engine.startAutoSync(for: .public) == .started)
        await relaunched.run()
        let status = await relaunched.engine.currentStatus().publicList
        #expect(status.isIdle, "\(status)")
        #expect(h.source.requests.contains { $0.fault?.code == .rateLimited })
        // A delta prunes nothing: the work removed on the web stays until a full walk.
        #expect(await relaunched.indexedIDs(.public).filter { $0 != 3 } == h.serverIDs(.public))

        // A walk ends with exactly the source.
        await h.clock.advance(by: 120)
        #expect(await relaunched.engine.refresh(.public) == .started)
        await relaunched.run()
        #expect(await relaunched.indexedIDs(.public) == h.serverIDs(.public))
        let stored = ListSyncRecord(await relaunched.store.metadata(for: .public))
        #expect(stored.damagedParts.isEmpty, "\(stored.damagedParts)")
    }

    // MARK: (c) Pixiv's total at the ends

    /// The fake source, answering `total` for the public list's size.
    struct SourceWithTotal: BookmarkSource {
        let base: FakeBookmarkSource
        let total: Int

        func firstPage(of restrict: Restrict) async throws -> BookmarkPage { try await base.firstPage(of: restrict) }
        func nextPage(_ token: String, of restrict: Restrict) async throws -> BookmarkPage { try await base.nextPage(token, of: restrict) }
        func totalCount(of restrict: Restrict) async throws -> Int? {
            guard try await base.totalCount(of: restrict) != nil else { return nil }
            return total
        }
    }

    @Test(arguments: [Int.max, Int.max - 28, -5])
    func aFullWalkShowsATimeLeftWhateverTheTotal(total: Int) async throws {
        let clock = TestClock()
        let source = FakeBookmarkSource(clock: clock, latency: 0.05)
        source.add(illusts(1, count: 75), to: .public)
        let store = try await BookmarksIndexStore(storage: InMemoryStorage())
        let engine = BookmarkSyncEngine(store: store, source: SourceWithTotal(base: source, total: total), clock: clock)
        let recorder = await StatusRecorder(engine)
        #expect(await engine.startAutoSync(for: .public) == .started)
        #expect(await clock.runUntilIdle(engine))

        let final = await engine.currentStatus()
        #expect(final.publicList.isIdle, "\(final.publicList)")
        let walking = await recorder.statuses(upTo: final).compactMap(\.publicList.progress).filter { $0.mode == .full && $0.knownTotal != nil }
        #expect(!walking.isEmpty, "the walk's progress shows the total")
        for progress in walking {
            #expect(progress.knownTotal == max(0, total))
            let left = try #require(progress.estimatedTimeLeft)
            #expect(left.isFinite && left >= 0, "\(left)")
            if total > 0 { #expect(left > 1_000_000, "about \(total / 30) pages are left: \(left) s") }
        }
        #expect(await store.bookmarks(in: .public, matching: BookmarkFilter(visibility: .all)).map(\.illust.id) == source.illusts(in: .public).map(\.id))
    }

    // MARK: (d) A row at the ends of the orders

    @Test(arguments: [Int64.max, Int64.max - 1, Int64.min])
    func aRowAtAnExtremeOrderTrapsNoSync(order: Int64) async throws {
        let h = try await Harness()
        await h.syncInFull(publicCount: 50)
        var extreme = try #require(await h.store.bookmark(for: BookmarkKey(illustID: 7, restrict: .public)))
        extreme.serverOrder = order
        try await h.store.upsert([extreme])
        #expect(await h.store.bookmark(for: extreme.key)?.serverOrder == order)

        // A delta places new rows above the newest: they tie at the end of the range.
        h.source.add(illusts(1_000, count: 40), to: .public)
        await h.clock.advance(by: 120)
        #expect(await h.engine.startAutoSync(for: .public) == .started)
        await h.run()
        #expect(await h.engine.currentStatus().publicList.isIdle)
        #expect(Set(await h.indexedIDs(.public)) == Set(h.serverIDs(.public)), "every work of the source is indexed")
        #expect(await h.store.count(in: .public) == 90)

        // A bookmark made in the app goes above the newest.
        let made = illust(5_000)
        h.source.add([made], to: .public)
        try await h.engine.recordBookmark(made, restrict: .public)
        #expect(await h.store.contains(BookmarkKey(illustID: 5_000, restrict: .public)))

        // A full walk places its rows above every row: from the end of the range down.
        await h.clock.advance(by: 120)
        #expect(await h.engine.refresh(.public) == .started)
        await h.run()
        #expect(await h.engine.currentStatus().publicList.isIdle)
        #expect(Set(await h.indexedIDs(.public)).isSuperset(of: h.serverIDs(.public)), "every work of the source is indexed")
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public), "the walk rewrote every order")

        // And a delta after it.
        h.source.add(illusts(2_000, count: 35), to: .public)
        await h.clock.advance(by: 120)
        await h.engine.startAutoSync(for: .public)
        await h.run()
        #expect(Set(await h.indexedIDs(.public)) == Set(h.serverIDs(.public)))
    }

    /// A full walk prunes the works it did not see, wherever their rows were: here one that
    /// sat at (or near) the top of the range, so that the walk's first orders saturated onto it.
    @Test(arguments: [Int64.max, Int64.max - 1, Int64.max - ServerOrder.deltaSpan, 0, Int64.min])
    func aFullWalkPrunesAWorkRemovedOnTheWebWhateverItsOrder(order: Int64) async throws {
        let h = try await Harness()
        await h.syncInFull(publicCount: 50)
        var extreme = try #require(await h.store.bookmark(for: BookmarkKey(illustID: 7, restrict: .public)))
        extreme.serverOrder = order
        try await h.store.upsert([extreme])
        h.source.remove(illustID: 7, from: .public)
        h.source.add(illusts(1_000, count: 10), to: .public)

        await h.clock.advance(by: 120)
        #expect(await h.engine.refresh(.public) == .started)
        await h.run()
        #expect(await h.indexedIDs(.public) == h.serverIDs(.public), "row 7 at order \(order)")
        #expect(await !h.store.contains(extreme.key), "row 7 at order \(order) is pruned")
    }

    /// The record the engine saves while a sync runs is one it reads back whole, even when the
    /// index holds a row at the top of the range (the walk's orders then start at the top too):
    /// a walk paused by failures keeps its cursor, and nothing of it reads as damaged.
    @Test(arguments: [Int64.max, 1 << 60, 0])
    func aWalksOwnCursorSurvivesAPauseWhateverTheOrders(order: Int64) async throws {
        let h = try await Harness()
        await h.syncInFull(publicCount: 100)
        var top = try #require(await h.store.bookmark(for: BookmarkKey(illustID: 100, restrict: .public)))
        top.serverOrder = order
        try await h.store.upsert([top])

        // A walk whose later pages fail until the list pauses: its cursor stays saved.
        h.source.setFaultRule { kind, _ in
            if case .nextPage = kind { return BookmarkSyncError(.server, "503") }
            return nil
        }
        await h.clock.advance(by: 120)
        #expect(await h.engine.refresh(.public) == .started)
        await h.run()
        let record = ListSyncRecord(await h.store.metadata(for: .public))
        guard case .paused = await h.engine.currentStatus().publicList else {
            Issue.record("expected the list to pause")
            return
        }
        #expect(record.fullWalkPosition != nil, "row at \(order): the walk's cursor is kept for its resumption")
        #expect(record.damagedParts.isEmpty, "row at \(order): \(record.damagedParts)")
    }

    // MARK: (e) Saturating arithmetic

    @Test func serverOrdersSaturateAtTheEnds() {
        let span = ServerOrder.deltaSpan
        #expect(ServerOrder.deltaOrder(index: 3, above: 10) == 10 + span - 3, "unchanged away from the ends")
        #expect(ServerOrder.deltaOrder(index: 0, above: nil) == span)
        #expect(ServerOrder.deltaOrder(index: 0, above: .max) == .max)
        #expect(ServerOrder.deltaOrder(index: 5, above: .max) == .max - 5, "the span saturates first, then the index is taken off")
        #expect(ServerOrder.deltaOrder(index: 0, above: .max - span + 1) == .max)
        #expect(ServerOrder.deltaOrder(index: 0, above: .max - span) == .max)
        #expect(ServerOrder.deltaOrder(index: .max, above: .min) == .min)
        #expect(ServerOrder.deltaOrder(index: .max, above: 0) == span - .max)
        #expect(ServerOrder.deltaOrder(index: -1, above: 0) == span, "a negative index counts as none")
        #expect(ServerOrder.deltaOrder(index: .min, above: .max) == .max)

        #expect(ServerOrder.walkOrder(index: 2, below: 5) == 2)
        #expect(ServerOrder.walkOrder(index: 0, below: nil) == -1)
        #expect(ServerOrder.walkOrder(index: 0, below: .min) == .min)
        #expect(ServerOrder.walkOrder(index: .max, below: 0) == .min)
        #expect(ServerOrder.walkOrder(index: .max, below: .max) == .max - 1 - .max)
        #expect(ServerOrder.walkOrder(index: -7, below: 0) == -1)

        #expect(ServerOrder.newest(above: nil) == 1)
        #expect(ServerOrder.newest(above: 41) == 42)
        #expect(ServerOrder.newest(above: .max) == .max)
        #expect(ServerOrder.newest(above: .min) == .min + 1)
    }

    @Test func saturatingAddAndSubtractStopAtTheEnds() {
        #expect(Int.max.saturatingAdd(1) == .max)
        #expect(Int.max.saturatingAdd(.max) == .max)
        #expect(Int.min.saturatingAdd(-1) == .min)
        #expect(Int.min.saturatingAdd(.min) == .min)
        #expect(Int.max.saturatingAdd(.min) == -1)
        #expect(Int.max.saturatingAdd(0) == .max)
        #expect(40.saturatingAdd(2) == 42)

        #expect(Int.min.saturatingSubtract(1) == .min)
        #expect(Int.max.saturatingSubtract(-1) == .max)
        #expect(0.saturatingSubtract(.min) == .max)
        #expect((-1).saturatingSubtract(.min) == .max)
        #expect(Int.min.saturatingSubtract(.min) == 0)
        #expect(Int.max.saturatingSubtract(.max) == 0)
        #expect(44.saturatingSubtract(2) == 42)

        #expect(Int64.max.saturatingAdd(ServerOrder.deltaSpan) == .max)
        #expect(Int64.min.saturatingSubtract(ServerOrder.deltaSpan) == .min)
        #expect(UInt8(250).saturatingAdd(10) == 255)
        #expect(UInt8(3).saturatingSubtract(5) == 0)
        #expect(UInt8(255).saturatingSubtract(0) == 255)
        #expect(Int8(-100).saturatingSubtract(100) == -128)
        #expect(Int8(100).saturatingAdd(-100) == 0)
    }
}
