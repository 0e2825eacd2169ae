import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation

/// One run of every item (or of the ``wanted`` ones), in an order where each reuses what the
/// one before left behind: the journal and database the appends wrote are compacted, then
/// opened, then queried. When an item is not wanted but a later one needs what it leaves, that
/// is made untimed instead.
struct BenchmarkRun {
    /// Every item's name, in the order of the run; `rss_bytes_per_bookmark` is the memory probe.
    static let itemNames = [
        "append_unsynced", "append_unsynced_on_pool", "append_unsynced_grouped", "append_durable", "append_durable_on_pool", "compact", "open", "store_open_over_sqlite", "open_uncompacted", "rss_bytes_per_bookmark",
        "open_without_snapshot", "histogram", "filter_all_of_2", "filter_any_of", "filter_none_of", "filter_text",
    ] + FacetItems.names + [
        "sync_full_engine", "delta_requests_unchanged", "pixiv_page_decode", "sync_walk_12k_simulated",
        "store_append_durable_over_sqlite", "sqlite_storage_conformance", "pool_lateness_p99", "query_p99_during_durable_sync",
    ] + AccountItems.names
    /// The items that need the compacted journal and database the unsynced appends leave.
    private static let afterCompaction = Set([
        "compact", "open", "store_open_over_sqlite", "rss_bytes_per_bookmark", "open_without_snapshot", "histogram", "filter_all_of_2", "filter_any_of", "filter_none_of", "filter_text",
    ] + FacetItems.names)

    let dataset: Dataset
    let sampling: Sampling
    let scratch: Scratch
    /// The items to run (names from ``itemNames``); `nil` runs every one.
    var wanted: Set<String>? = nil
    let log: (String) -> Void

    private func wants(_ name: String) -> Bool {
        wanted?.contains(name) ?? true
    }

    func run() async throws -> (results: [ItemResult], memory: MemoryProbe.Result?, notes: [String]) {
        let ours = JournalItems(dataset: dataset, sampling: sampling, scratch: scratch)
        let sqlite = SQLiteItems(dataset: dataset, sampling: sampling, scratch: scratch)
        var results: [ItemResult] = []
        var item: ItemResult
        let n = dataset.count
        let needsCompactedJournal = Self.afterCompaction.contains(where: wants)

        // 1. Appends.
        var unsynced: URL?
        var sqliteUnsynced: URL?
        if wants("append_unsynced") {
            log("append_unsynced")
            let appended = try await ours.appendUnsynced(from: .cooperativePool)
            let sqliteAppended = try sqlite.append(durable: false)
            (unsynced, sqliteUnsynced) = (appended.directory, sqliteAppended.directory)
            item = ItemResult(name: "append_unsynced", ours: appended.figure, sqlite: sqliteAppended.figure)
            let rate = Double(n) / (appended.figure.median / 1000)
            item.note = String(format: "%.0f bookmarks/s", rate)
            item.fields = [("bookmarks_per_second", .number(rate))]
            item.target = Target(text: "≤ 500 ms, ratio ≤ 0.2", isMet: appended.figure.median <= 500 && item.ratio.map { $0 <= 0.2 } ?? false)
            results.append(item)
        } else if needsCompactedJournal {
            log("(untimed) the journal and database the later items need")
            (unsynced, sqliteUnsynced) = (try await ours.writeJournal(), try sqlite.writeOnce())
        }

        if wants("append_unsynced_on_pool") {
            log("append_unsynced_on_pool")
            let appended = try await ours.appendUnsynced(from: .storagePool)
            scratch.remove(appended.directory)
            item = ItemResult(name: "append_unsynced_on_pool", ours: appended.figure, sqlite: nil)
            item.target = Target(text: "≤ 500 ms", isMet: appended.figure.median <= 500)
            results.append(item)
        }

        if wants("append_unsynced_grouped") {
            log("append_unsynced_grouped")
            let grouped = try await ours.appendUnsynced(from: .cooperativePoolGrouped)
            scratch.remove(grouped.directory)
            item = ItemResult(name: "append_unsynced_grouped", ours: grouped.figure, sqlite: nil)
            item.note = "\(JournalItems.groupSize) batches a call to append(contentsOf:)"
            if let onPool = results.first(where: { $0.name == "append_unsynced_on_pool" })?.ours?.median {
                let overPool = grouped.figure.median / onPool
                item.fields = [("over_on_pool", .number(overPool))]
                item.note += String(format: "; %.2f × append_unsynced_on_pool", overPool)
                item.target = Target(text: "≤ 1.5 × on pool", isMet: overPool <= 1.5)
            }
            results.append(item)
        }

        if wants("append_durable") || wants("append_durable_on_pool") {
            log("append_durable, append_durable_on_pool")
            let (durable, fromStoragePool, floor, encoding, overwriteFloor) = try await ours.appendDurableWithFloor()
            let sqliteDurable = try sqlite.append(durable: true)
            scratch.remove(sqliteDurable.directory)
            let floorPlusEncoding = (floor.median + encoding.median) / floor.median
            for (name, figure) in [("append_durable", durable), ("append_durable_on_pool", fromStoragePool)] where wants(name) {
                item = ItemResult(name: name, ours: figure, sqlite: sqliteDurable.figure)
                let overFloor = figure.median / floor.median
                item.fields = [
                    ("fsync_floor_ms", .number(floor.median)),
                    ("fsync_floor_p90_ms", .number(floor.p90)),
                    ("floor_ratio", .number(overFloor)),
                    ("fsyncs", .integer(dataset.changeBatches.count)),
                    ("encode_ms", .number(encoding.median)),
                    ("floor_plus_encode_ratio", .number(floorPlusEncoding)),
                    ("overwrite_floor_ms", .number(overwriteFloor.median)),
                    ("overwrite_floor_ratio", .number(overwriteFloor.median / floor.median)),
                ]
                item.note = String(
                    format: "fsync floor %.1f ms (%d fsyncs), encoding %.1f ms (floor + encoding = %.3f x floor); ours = %.3f x floor; overwriting space written ahead: %.3f x floor",
                    floor.median, dataset.changeBatches.count, encoding.median, floorPlusEncoding, overFloor, overwriteFloor.median / floor.median
                )
                item.target = Target(text: "≤ 1.15 x fsync floor (issue 25)", isMet: overFloor <= 1.15)
                results.append(item)
            }
        }

        // 3. Compaction, of the journal and database the unsynced appends left.
        var compactedBytes: Int?
        if needsCompactedJournal, let unsynced, let sqliteUnsynced {
            let uncompactedBytes = JournalItems.journalBytes(in: unsynced)
            if wants("compact") {
                log("compact")
                settleWrites()
                let compact = try await ours.compact(directory: unsynced)
                let sqliteCompact = try sqlite.compact(directory: sqliteUnsynced)
                let bytes = JournalItems.journalBytes(in: unsynced)
                item = ItemResult(name: "compact", ours: compact, sqlite: sqliteCompact)
                item.fields = [("journal_bytes_before", .integer(uncompactedBytes)), ("journal_bytes_after", .integer(bytes))]
                item.note = String(format: "journal %.1f MB after compaction; SQLite: VACUUM", Double(bytes) / 1_048_576)
                item.target = Target(text: "≤ 500 ms", isMet: compact.median <= 500)
                results.append(item)
            } else {
                try await ours.compactOnce(directory: unsynced)
            }
            compactedBytes = JournalItems.journalBytes(in: unsynced)
        }

        // 2. Opens.
        var sqliteOpen: Figure?
        if wants("open"), let unsynced, let sqliteUnsynced, let compactedBytes {
            log("open")
            settleWrites()
            let open = try await ours.openStore(directory: unsynced)
            let sqliteFigure = try sqlite.openDatabase(directory: sqliteUnsynced)
            sqliteOpen = sqliteFigure
            item = ItemResult(name: "open", ours: open, sqlite: sqliteFigure)
            let checkpointBytes = JournalItems.fileBytes(JournalStorage.checkpointFileName, in: unsynced)
            // The field keeps its name from before the checkpoint had its name: reports compare across runs.
            item.fields = [("journal_bytes", .integer(compactedBytes)), ("snapshot_bytes", .integer(checkpointBytes))]
            item.note = (checkpointBytes > 0
                ? String(format: "after compaction: checkpoint (%.1f MB) + journal lines after it", Double(checkpointBytes) / 1_048_576)
                : "after compaction: journal read whole (below the checkpoint threshold)")
                + ", + first histogram; SQLite: open + first histogram"
            item.target = Target(text: "≤ 400 ms, ratio ≤ 1.0", isMet: open.median <= 400 && item.ratio.map { $0 <= 1.0 } ?? false)
            results.append(item)
        }

        // 10. The index over SQLite storage, beside the index over the journal.
        let storage = StorageItems(dataset: dataset, sampling: sampling, scratch: scratch)
        if wants("store_open_over_sqlite"), let unsynced {
            log("store_open_over_sqlite")
            let open = try await storage.open(journalDirectory: unsynced)
            item = ItemResult(name: "store_open_over_sqlite", ours: open.journal, sqlite: open.sqlite)
            item.note = "BookmarksIndexStore opened + first histogram: over the compacted journal (ours) and over SQLiteStorage (its rows decoded with JSONDecoder)"
            results.append(item)
        }

        if wants("open_uncompacted") {
            log("open_uncompacted")
            let twice = try await ours.writeUncompactedJournal()
            let twiceBytes = JournalItems.journalBytes(in: twice)
            let sqliteTwice = try sqlite.writeTwice()
            settleWrites()
            let openTwice = try await ours.openStore(directory: twice, checkpoints: false)
            let sqliteOpenTwice = try sqlite.openDatabase(directory: sqliteTwice)
            scratch.remove(twice)
            scratch.remove(sqliteTwice)
            item = ItemResult(name: "open_uncompacted", ours: openTwice, sqlite: sqliteOpenTwice)
            item.fields = [("journal_bytes", .integer(twiceBytes))]
            item.note = String(format: "no checkpoint: journal %.1f MB", Double(twiceBytes) / 1_048_576)
                + (compactedBytes.map { String(format: " = %.2f x compacted", Double(twiceBytes) / Double(max($0, 1))) } ?? "")
                + ", read whole; SQLite: db after 2N upserts"
            results.append(item)
        }

        // 7. Memory of an open, in a child process, on the compacted journal (not open here).
        var memory: MemoryProbe.Result?
        if wants("rss_bytes_per_bookmark"), let unsynced {
            log("rss_bytes_per_bookmark")
            memory = try MemoryProbe.measure(directory: unsynced)
        }

        // The compacted journal again, read whole: what open costs when there is no usable
        // checkpoint (deleted before each sample, so this comes after the memory probe).
        if wants("open_without_snapshot"), let unsynced, let sqliteUnsynced, let compactedBytes {
            log("open_without_snapshot")
            settleWrites()
            let openWhole = try await ours.openStore(directory: unsynced, checkpoints: false)
            let sqliteFigure = try sqliteOpen ?? sqlite.openDatabase(directory: sqliteUnsynced)
            item = ItemResult(name: "open_without_snapshot", ours: openWhole, sqlite: sqliteFigure)
            item.fields = [("journal_bytes", .integer(compactedBytes))]
            item.note = "compacted journal read whole (the checkpoint deleted); SQLite: open + first histogram"
            results.append(item)
        }

        // 4, 5. Queries.
        let queryNames = ["histogram", "filter_all_of_2", "filter_any_of", "filter_none_of", "filter_text"] + FacetItems.names
        if queryNames.contains(where: wants), let unsynced, let sqliteUnsynced {
            log("histogram, filters, sorts, facets")
            results += try await queries(directory: unsynced, sqliteDirectory: sqliteUnsynced, sqlite: sqlite).filter { wants($0.name) }
        }
        if let unsynced { scratch.remove(unsynced) }
        if let sqliteUnsynced { scratch.remove(sqliteUnsynced) }

        // 6. Sync engine.
        if wants("sync_full_engine") || wants("delta_requests_unchanged") {
            log("sync_full_engine, delta_requests_unchanged")
            let sync = try await SyncItems(dataset: dataset, sampling: sampling, scratch: scratch).run()
            item = ItemResult(name: "sync_full_engine", ours: sync.perPage)
            item.fields = [("pages", .integer(sync.pages)), ("unit", .string("ms per page")), ("cpu_ms_per_page", .number(sync.cpuPerPage.median))]
            item.note = String(
                format: "per page, %d pages, %.3f ms CPU a page (every thread); PixivClient + FakePixiv (replayed) in process, instant clock, durability .none",
                sync.pages, sync.cpuPerPage.median
            )
            item.target = Target(text: "≤ 0.4 ms CPU a page (issue 25)", isMet: sync.cpuPerPage.median <= 0.4)
            if wants(item.name) { results.append(item) }
            item = ItemResult(name: "delta_requests_unchanged")
            item.fields = [("requests", .integer(sync.deltaRequests))]
            item.note = "\(sync.deltaRequests) request(s)"
            item.target = Target(text: "= 1 request", isMet: sync.deltaRequests == 1)
            if wants(item.name) { results.append(item) }
        }

        if wants("pixiv_page_decode") {
            log("pixiv_page_decode")
            results.append(try await DecodeItems(dataset: dataset, sampling: sampling).item())
        }

        if wants("sync_walk_12k_simulated") {
            log("sync_walk_12k_simulated")
            let walk = try await SimulatedWalk().run()
            item = ItemResult(name: "sync_walk_12k_simulated")
            let ratio = walk.seconds / walk.optimumSeconds
            item.fields = [
                ("virtual_s", .number(walk.seconds)), ("optimum_s", .number(walk.optimumSeconds)), ("ratio", .number(ratio)),
                ("requests", .integer(walk.requests)), ("rate_limit_trips", .integer(walk.trips)), ("paused", .bool(walk.paused)),
            ]
            item.note = String(
                format: "%.0f s virtual vs the limit's optimum %.0f s (ratio %.2f), %d requests, %d rate-limit answer(s)",
                walk.seconds, walk.optimumSeconds, ratio, walk.requests, walk.trips
            )
            item.target = Target(text: "≤ 2 × optimum, ≤ 1 trip, no pause", isMet: ratio <= 2 && walk.trips <= 1 && !walk.paused)
            results.append(item)
        }

        if wants("store_append_durable_over_sqlite") {
            log("store_append_durable_over_sqlite")
            let append = try await storage.appendDurable()
            item = ItemResult(name: "store_append_durable_over_sqlite", ours: append.journal, sqlite: append.sqlite)
            item.fields = [("batches", .integer(storage.durableBatches.count))]
            item.note = "store.apply of \(storage.durableBatches.count) batches of 30, durably: over JournalStorage (.always) and over SQLiteStorage (synchronous=FULL)"
            results.append(item)
        }

        if wants("sqlite_storage_conformance") {
            log("sqlite_storage_conformance")
            try await storage.checkSQLiteConformance() // throws, and fails the run, on any failed check
            item = ItemResult(name: "sqlite_storage_conformance")
            item.fields = [("checks", .integer(StorageConformance.checks.count))]
            item.note = "SQLiteStorage passes StorageConformance's \(StorageConformance.checks.count) checks"
            item.target = Target(text: "every check passes", isMet: true)
            results.append(item)
        }

        // 8, 9. The cooperative pool under the stores' blocking file work.
        let concurrency = ConcurrencyItems(dataset: dataset, sampling: sampling, scratch: scratch)
        let sizes = concurrency.sizes
        if wants("pool_lateness_p99") {
            log("pool_lateness_p99")
            let lateness = try await concurrency.poolLateness()
            item = ItemResult(name: "pool_lateness_p99", ours: lateness.loaded)
            item.fields = [
                ("p99_ms", .number(lateness.loaded.p99)), ("median_ms", .number(lateness.loaded.median)),
                ("max_ms", .number(lateness.loaded.maximum)), ("ticks", .integer(lateness.loaded.samples.count)),
                ("idle_p99_ms", .number(lateness.idle.p99)), ("idle_median_ms", .number(lateness.idle.median)),
                ("load_ms", .number(lateness.load.median)),
            ]
            item.note = String(
                format: "1 ms ticker late by p99 %.2f ms, max %.1f (%d ticks; idle p99 %.3f ms) over %.0f ms of load a round",
                lateness.loaded.p99, lateness.loaded.maximum, lateness.loaded.samples.count, lateness.idle.p99, lateness.load.median
            )
            item.target = Target(text: "p99 < 5 ms", isMet: lateness.loaded.p99 < 5)
            results.append(item)
        }

        if wants("query_p99_during_durable_sync") {
            log("query_p99_during_durable_sync")
            let latency = try await concurrency.queryLatencyDuringSync()
            item = ItemResult(name: "query_p99_during_durable_sync", ours: latency.loaded)
            item.fields = [
                ("p99_ms", .number(latency.loaded.p99)), ("median_ms", .number(latency.loaded.median)),
                ("max_ms", .number(latency.loaded.maximum)), ("queries", .integer(latency.loaded.samples.count)),
                ("idle_p99_ms", .number(latency.idle.p99)), ("no_fsync_p99_ms", .number(latency.withoutFsync.p99)),
                ("no_fsync_queries", .integer(latency.withoutFsync.samples.count)), ("load_ms", .number(latency.load.median)),
            ]
            item.note = String(
                format: "count(in:) p99 %.3f ms, max %.1f (%d calls; idle p99 %.4f ms, durability .none p99 %.3f ms) over %.0f ms of syncs a round",
                latency.loaded.p99, latency.loaded.maximum, latency.loaded.samples.count, latency.idle.p99,
                latency.withoutFsync.p99, latency.load.median
            )
            results.append(item)
        }

        // 10, 11. Many accounts in one host.
        results += try await AccountItems(n: n, sampling: sampling, scratch: scratch, wants: wants, log: log).run()

        let rounds = "\(sampling.samples) rounds after \(sampling.warmUps) warm-up, the probe's samples pooled"
        let notes: [(items: [String], text: String)] = [
            ([], "Targets are the issue's, defined at N = 100,000 on a 2-core machine."),
            (["append_unsynced", "append_unsynced_on_pool", "append_unsynced_grouped", "append_durable", "append_durable_on_pool"], "append_*: JournalStorage.append of \(dataset.changeBatches.count) batches of 30 into a fresh journal (encode + write, + fsync for durable), in a loop on the cooperative pool (each append a hand-over to the IOThreadPool and back), or, *_on_pool, in a task that prefers the storage's IOThreadPool as its executor (each append on the loop's own thread), or, *_grouped, from the cooperative pool with append(contentsOf:) of \(JournalItems.groupSize) batches a call (one hand-over and one write a group); SQLite: one transaction per batch, WAL, synchronous OFF / FULL."),
            (["append_durable", "append_durable_on_pool"], "fsync floor: the journal's own batch lines, one write + fsync each, in the same run, alternating sample by sample with the durable appends from both callers; encoding: each batch made into its line as an append makes it, no file, timed once a round for both items; overwrite floor: the same lines, each a pwrite into space written with spaces and fsynced ahead (256 kB at a time, under one fsync with the line that needs it) and an fdatasync, alternating with the floor (close to what the journal does since it writes over room: the floor of that way of writing); floor + encoding is what an append cannot do without, the rest (ours − floor − encoding) is the hand-overs between threads (none on the pool), the checks, the lane and the lock."),
            (["open", "open_uncompacted", "open_without_snapshot"], "open: the journal file is in the page cache (no cache drop), as is SQLite's; sync(2) before each open item and compact, untimed, so that neither side pays for the writeback of earlier items."),
            (["sync_full_engine", "delta_requests_unchanged"], "sync_full_engine / delta_requests_unchanged: BookmarkSyncEngine through PixivBookmarkSource and PixivClient against FakePixiv in process (no sockets), with an instant clock; FakePixiv's answers are recorded in the warm-up and replayed, so the samples time the engine, the store and the client decoding Pixiv's JSON, not FakePixiv encoding it."),
            (["pixiv_page_decode"], "pixiv_page_decode: PixivClient.bookmarks(nextURL:) over \(DecodeItems.pages) pages FakePixiv answered for the data set (recorded once, then handed back by a transport that answers at once), per page; MB/s: the bodies' bytes over the median; jsondecoder_ms: Foundation's JSONDecoder decoding the same bodies into the same BookmarksPage (checked equal to the client's), per page; parse_floor_ms: the package's JSON reader walking the same bodies (every value checked, strings' UTF-8 included) without making any value, per page, the floor the decoding is measured against (parse_floor_ratio: ours / the floor); source_page_ms: PixivBookmarkSource.nextPage on the same pages, the sync's reading (the client reading summaries, then the index's snapshots), per page (source_floor_ratio: over the floor)."),
            (["sync_walk_12k_simulated"], "sync_walk_12k_simulated: the engine's default pacing walking 12,000 bookmarks (401 requests) against FakePixiv's rate-limit model of 100 requests per 120 s with a 300 s penalty, in virtual time on one instant clock; the optimum sends every request as early as the window allows at the 150 ms floor."),
            (["rss_bytes_per_bookmark"], "rss_bytes_per_bookmark: (VmHWM after open - VmRSS before open) / bookmarks, in a child process."),
            (["pool_lateness_p99"], "pool_lateness_p99: how late a task on the cooperative pool that loops Task.sleep(for: 1 ms) wakes (ContinuousClock time of each sleep - 1 ms), from just before a load starts until it ends; the load: 4 stores of \(sizes.storeBookmarks) bookmarks (written untimed with durability .none, opened with .always) each apply a batch of 30 they already hold and compact (write, fsync, rename, directory fsync), \(ConcurrencyItems.compactionsPerStore) times, while 4 fresh stores each apply \(sizes.pages) pages of 30 with durability .always (write + fsync each, and the automatic compactions their journals ask for), all in one task group, every loop yielding between steps as a sync does between pages; \(rounds). ours / p90 / median_ms / p99_ms / max_ms: that lateness; idle_p99_ms: the same ticker for \(sizes.idleTicks) ticks with nothing else running; load_ms: the median round's load wall time."),
            (["query_p99_during_durable_sync"], "query_p99_during_durable_sync: the latency of each await store.count(in: .public), called in a loop on the cooperative pool with a 0.2 ms Task.sleep between calls (not timed), on one of 4 fresh stores that each apply \(sizes.pages) pages of 30 with durability .always concurrently, yielding between pages (the query waits for the store's actor, which does each page's write + fsync on the pool), from just before the syncs start until they end; \(rounds). idle_p99_ms: \(sizes.idleQueries) calls on a store holding \(sizes.pages) pages with nothing else running; no_fsync_p99_ms: the same rounds with durability .none; load_ms: the median durable round's wall time."),
        ]
        return (results, memory, notes.filter { $0.items.isEmpty || $0.items.contains(where: wants) }.map(\.text) + AccountItems.notes(wants: wants))
    }

    private func queries(directory: URL, sqliteDirectory: URL, sqlite: SQLiteItems) async throws -> [ItemResult] {
        let store = try await BookmarksIndexStore.open(directory: directory, options: JournalItems.options(.none))
        let peer = try SQLitePeer(directory: sqliteDirectory, durable: false)
        let tags = FilterTags(histogram: await store.tagHistogram(in: .public))
        var results: [ItemResult] = []

        let histogram = try await sampling.measure {
            try await elapsedMilliseconds {
                guard await store.tagHistogram(in: .public, limit: 50).count == 50 else { throw HarnessError("histogram short") }
            }
        }
        let sqliteHistogram = try sampling.measure {
            try elapsedMilliseconds {
                guard try peer.tagHistogram(restrict: .public, limit: 50) == 50 else { throw HarnessError("SQLite histogram short") }
            }
        }
        var item = ItemResult(name: "histogram", ours: histogram, sqlite: sqliteHistogram)
        item.note = "top 50 tags of the public list"
        item.target = Target(text: "≤ 1 ms, ratio ≤ 0.01", isMet: histogram.median <= 1 && item.ratio.map { $0 <= 0.01 } ?? false)
        results.append(item)

        let queries: [FilterQuery] = [
            FilterQuery(
                name: "filter_all_of_2", filter: BookmarkFilter(allOf: [tags.middle.0, tags.middle.1]),
                sqlite: { try peer.bookmarks(restrict: .public, allOf: tags.middle.0, tags.middle.1, limit: 100) },
                note: "all of tags #50 and #60"
            ),
            FilterQuery(
                name: "filter_any_of", filter: BookmarkFilter(anyOf: [tags.middle.0, tags.middle.1]),
                sqlite: { try peer.bookmarks(restrict: .public, anyOf: tags.middle.0, tags.middle.1, limit: 100) },
                note: "any of tags #50 and #60"
            ),
            FilterQuery(
                name: "filter_none_of", filter: BookmarkFilter(noneOf: [tags.frequent.0, tags.frequent.1]),
                sqlite: { try peer.bookmarks(restrict: .public, noneOf: tags.frequent.0, tags.frequent.1, limit: 100) },
                note: "none of tags #0 and #1"
            ),
            FilterQuery(
                // A title part of one work in a thousand: the list is read nearly whole.
                name: "filter_text", filter: BookmarkFilter(text: "#999"),
                sqlite: { try peer.bookmarks(restrict: .public, text: "#999", limit: 100) },
                note: "title or artist containing \"#999\" (a full scan)"
            ),
        ]
        for query in queries {
            let expected = await store.bookmarks(in: .public, matching: query.filter, limit: 100).count
            let sqliteCount = try query.sqlite()
            guard expected == sqliteCount else {
                throw HarnessError("\(query.name): the index returned \(expected) rows, SQLite \(sqliteCount)")
            }
            let figure = await sampling.measure {
                await elapsedMilliseconds { blackHole(await store.bookmarks(in: .public, matching: query.filter, limit: 100)) }
            }
            let sqliteFigure = try sampling.measure { try elapsedMilliseconds { blackHole(try query.sqlite()) } }
            item = ItemResult(name: query.name, ours: figure, sqlite: sqliteFigure)
            item.fields = [("rows", .integer(expected))]
            item.note = "first 100 (\(expected) rows) of \(query.note)"
            if query.name == "filter_all_of_2" || query.name == "filter_text" {
                item.target = Target(text: "≤ 1 ms", isMet: figure.median <= 1)
            }
            results.append(item)
        }
        results += try await FacetItems(sampling: sampling).run(store: store, peer: peer, wants: wants)
        try await store.close()
        return results
    }
}

/// One filter item: the index's filter and the SQL that does the same.
private struct FilterQuery {
    var name: String
    var filter: BookmarkFilter
    var sqlite: () throws -> Int
    var note: String
}
