import BookmarkIndex
import Foundation
import Synchronization

/// Items 8 and 9: how much the stores' blocking file work disturbs Swift's cooperative thread
/// pool. A store does its journal's write + fsync and its compactions synchronously on its
/// actor, so on a thread of that pool; these items time, under such a load, a 1 ms ticker on
/// the pool (`pool_lateness_p99`) and a query of one of the busy stores
/// (`query_p99_during_durable_sync`), each beside the same probe with nothing else running.
///
/// Each item runs its load once to warm up, then `samples` times (rounds); the probe's samples
/// of the measured rounds are pooled into one figure. The probe starts before the load and
/// keeps going until the load ends, so every sample falls inside the load.
struct ConcurrencyItems {
    let dataset: Dataset
    let sampling: Sampling
    let scratch: Scratch

    /// Stores of each kind in a load: 4 compacting and 4 syncing.
    static let stores = 4
    /// Appends and compactions each compacting store runs in one round.
    static let compactionsPerStore = 3

    /// The sizes at this run's N: the from N = 10,000 up, smaller below (the smoke run).
    struct Sizes {
        /// Bookmarks in each compacting store.
        var storeBookmarks: Int
        /// Pages of 30 bookmarks that each syncing store applies in one round.
        var pages: Int
        /// Ticks of the idle ticker.
        var idleTicks: Int
        /// Calls of the idle query loop.
        var idleQueries: Int

        init(n: Int) {
            let small = n < 10_000
            storeBookmarks = min(25_000, n)
            pages = small ? 30 : 150
            idleTicks = small ? 100 : 1_000
            idleQueries = small ? 500 : 2_000
        }
    }

    var sizes: Sizes { Sizes(n: dataset.count) }

    struct Lateness {
        /// How late each tick woke, in ms, pooled over the measured rounds.
        var loaded: Figure
        /// The same ticker with nothing else running.
        var idle: Figure
        /// How long each measured round's load ran, in ms.
        var load: Figure
    }

    struct QueryLatency {
        /// Each `count(in:)` call's latency, in ms, pooled over the measured rounds of durable syncs.
        var loaded: Figure
        /// The same loop on a store with nothing else running.
        var idle: Figure
        /// The same loop while the syncs run with durability `.none`.
        var withoutFsync: Figure
        /// How long each measured round of durable syncs ran, in ms.
        var load: Figure
    }

    /// `pool_lateness_p99`: the ticker idle, then during rounds in which 4 stores of
    /// ``Sizes/storeBookmarks`` each append a batch and compact, ``compactionsPerStore`` times,
    /// while 4 fresh stores each apply ``Sizes/pages`` pages with durability `.always`. The compacting stores
    /// are written (durability `.none`) and opened before the first round, untimed; the syncing
    /// stores are fresh in every round, opened before it and closed after it.
    func poolLateness() async throws -> Lateness {
        let sizes = sizes
        let idle = try await Self.tickLateness(until: { $0 >= sizes.idleTicks })
        var compacting: [(store: BookmarksIndexStore, directory: URL)] = []
        for _ in 0..<Self.stores { compacting.append(try await compactingStore()) }
        let compactingStores = compacting.map(\.store)
        let refills = compactingBatches

        var ticks: [Double] = []
        var loads: [Double] = []
        for round in 0..<(sampling.warmUps + sampling.samples) {
            let syncing = try await syncingStores(.always)
            let syncingStores = syncing.map(\.store)
            let pages = syncingPages
            let outcome = try await Self.during(
                load: { try await Self.compactAndSync(compacting: compactingStores, refills: refills, syncing: syncingStores, pages: pages) },
                probe: { stop in try await Self.tickLateness(until: stop) }
            )
            try await close(syncing)
            guard round >= sampling.warmUps else { continue }
            ticks += outcome.samples
            loads.append(outcome.loadMilliseconds)
        }
        try await close(compacting)
        guard !ticks.isEmpty else { throw HarnessError("the ticker never ticked during the load") }
        return Lateness(loaded: Figure(samples: ticks), idle: Figure(samples: idle), load: Figure(samples: loads))
    }

    /// `query_p99_during_durable_sync`: the query loop on an idle store (one synced with
    /// durability `.none` beforehand, untimed), then on the first of 4 fresh stores during rounds
    /// in which each applies ``Sizes/pages`` pages with durability `.always`, then the same
    /// rounds with durability `.none`.
    func queryLatencyDuringSync() async throws -> QueryLatency {
        let sizes = sizes
        let pages = syncingPages
        let idleStore = try await syncingStores(.none, count: 1)
        for batch in pages[0] { try await idleStore[0].store.apply(batch) }
        let idle = try await Self.queryLatency(idleStore[0].store, until: { $0 >= sizes.idleQueries })
        try await close(idleStore)

        func rounds(_ durability: JournalStorage.Options.Durability) async throws -> (latencies: [Double], loads: [Double]) {
            var latencies: [Double] = []
            var loads: [Double] = []
            for round in 0..<(sampling.warmUps + sampling.samples) {
                let syncing = try await syncingStores(durability)
                let stores = syncing.map(\.store)
                let queried = stores[0]
                let outcome = try await Self.during(
                    load: { try await Self.sync(stores, pages: pages) },
                    probe: { stop in try await Self.queryLatency(queried, until: stop) }
                )
                try await close(syncing)
                guard round >= sampling.warmUps else { continue }
                latencies += outcome.samples
                loads.append(outcome.loadMilliseconds)
            }
            guard !latencies.isEmpty else { throw HarnessError("no query completed during the syncs (\(durability))") }
            return (latencies, loads)
        }
        let durable = try await rounds(.always)
        let unsynced = try await rounds(.none)
        return QueryLatency(
            loaded: Figure(samples: durable.latencies), idle: Figure(samples: idle),
            withoutFsync: Figure(samples: unsynced.latencies), load: Figure(samples: durable.loads)
        )
    }

    // MARK: Stores

    /// The batches a compacting store is written with: the first ``Sizes/storeBookmarks`` of
    /// the data set, in its batches of 30.
    private var compactingBatches: [[BookmarkChange]] {
        Array(dataset.changeBatches.prefix((sizes.storeBookmarks + Dataset.batchSize - 1) / Dataset.batchSize))
    }

    /// The pages each syncing store applies: store `i` takes ``Sizes/pages`` consecutive batches
    /// of the data set from batch `i` × pages on, wrapping around when the data set is shorter.
    private var syncingPages: [[[BookmarkChange]]] {
        let batches = dataset.changeBatches
        let pages = sizes.pages
        return (0..<Self.stores).map { store in (0..<pages).map { batches[(store * pages + $0) % batches.count] } }
    }

    /// A store holding ``compactingBatches``, written with durability `.none` and reopened with
    /// `.always` (compaction fsyncs either way).
    private func compactingStore() async throws -> (store: BookmarksIndexStore, directory: URL) {
        let directory = try scratch.directory("compacting")
        let storage = try await JournalStorage.open(directory: directory, options: JournalItems.options(.none))
        for batch in compactingBatches { try await storage.append(batch) }
        try await storage.close()
        return (try await BookmarksIndexStore.open(directory: directory, options: JournalItems.options(.always)), directory)
    }

    /// `count` fresh, empty stores.
    private func syncingStores(_ durability: JournalStorage.Options.Durability, count: Int = stores) async throws -> [(store: BookmarksIndexStore, directory: URL)] {
        var stores: [(store: BookmarksIndexStore, directory: URL)] = []
        for _ in 0..<count {
            let directory = try scratch.directory("syncing")
            stores.append((try await BookmarksIndexStore.open(directory: directory, options: JournalItems.options(durability)), directory))
        }
        return stores
    }

    private func close(_ stores: [(store: BookmarksIndexStore, directory: URL)]) async throws {
        for (store, directory) in stores {
            try await store.close()
            scratch.remove(directory)
        }
    }

    // MARK: Loads

    // Every loop below yields between its steps, as a sync does while it waits for the next
    // page from the network. Without it, a task whose calls find the store's actor free never
    // suspends and keeps its thread of the pool from one call to the next: two such loops hold
    // both threads of a 2-core machine until they end, and nothing else on the pool runs.

    /// Each of `syncing` applies its pages, one `apply` per page, all concurrently, with the
    /// automatic compactions their journals ask for as they grow.
    private static func sync(_ syncing: [BookmarksIndexStore], pages: [[[BookmarkChange]]]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (store, pages) in zip(syncing, pages) {
                group.addTask {
                    for page in pages {
                        try await store.apply(page)
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// ``sync(_:pages:)``, while each of `compacting` appends one of `refills` (bookmarks it
    /// already holds) and compacts, ``compactionsPerStore`` times.
    private static func compactAndSync(
        compacting: [BookmarksIndexStore], refills: [[BookmarkChange]], syncing: [BookmarksIndexStore], pages: [[[BookmarkChange]]]
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await sync(syncing, pages: pages) }
            for store in compacting {
                group.addTask {
                    for compaction in 0..<compactionsPerStore {
                        try await store.apply(refills[compaction % refills.count])
                        try await store.compact()
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    // MARK: Probes

    /// Runs `probe` on the cooperative pool, and `load` once the probe has started; the probe's
    /// `stop` answers true once the load has ended, so the probe's samples cover the load from
    /// its start to its end. Returns the samples and the load's wall time.
    private static func during(
        load: @escaping @Sendable () async throws -> Void,
        probe: @escaping @Sendable (_ stop: @escaping @Sendable (Int) -> Bool) async throws -> [Double]
    ) async throws -> (samples: [Double], loadMilliseconds: Double) {
        enum Part {
            case samples([Double])
            case loadMilliseconds(Double)
        }
        let loaded = Flag()
        let (started, signal) = AsyncStream<Void>.makeStream()
        return try await withThrowingTaskGroup(of: Part.self) { group in
            group.addTask {
                signal.finish()
                return .samples(try await probe { _ in loaded.isSet })
            }
            for await _ in started {}
            group.addTask {
                defer { loaded.set() }
                return .loadMilliseconds(try await elapsedMilliseconds { try await load() })
            }
            var samples: [Double] = []
            var loadMilliseconds = 0.0
            for try await part in group {
                switch part {
                case .samples(let values): samples = values
                case .loadMilliseconds(let elapsed): loadMilliseconds = elapsed
                }
            }
            return (samples, loadMilliseconds)
        }
    }

    /// Sleeps 1 ms in a loop on the cooperative pool until `stop(ticks so far)`, and returns how
    /// late each sleep returned, in ms: (the sleep's wall time) - 1 ms.
    @concurrent
    private static func tickLateness(until stop: @Sendable (Int) -> Bool) async throws -> [Double] {
        var lateness: [Double] = []
        while !stop(lateness.count) {
            let start = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(1))
            lateness.append(milliseconds(ContinuousClock.now - start - .milliseconds(1)))
        }
        return lateness
    }

    /// Calls `store.count(in: .public)` in a loop on the cooperative pool, sleeping 0.2 ms
    /// between calls, until `stop(calls so far)`, and returns each call's latency in ms (the
    /// sleeps not included). Paced so, the calls arrive at times that have nothing to do with
    /// the store's work, at about the same rate in every run; a loop that only yielded would
    /// call as fast as it could whenever the store's actor was free, and how many such quick
    /// calls a run got would decide its percentiles.
    @concurrent
    private static func queryLatency(_ store: BookmarksIndexStore, until stop: @Sendable (Int) -> Bool) async throws -> [Double] {
        var latencies: [Double] = []
        while !stop(latencies.count) {
            let start = ContinuousClock.now
            blackHole(await store.count(in: .public))
            latencies.append(milliseconds(ContinuousClock.now - start))
            try await Task.sleep(for: .microseconds(200))
        }
        return latencies
    }
}

/// A flag that one task sets once and others read.
private final class Flag: Sendable {
    private let value = Atomic(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    func set() { value.store(true, ordering: .releasing) }
}
