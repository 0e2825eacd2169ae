import BookmarkIndex
import Foundation

/// A sequence of store writes and queries on a journal, beside the same writes applied to a
/// plain ``BookmarkIndexState``: every query answers as the model does, a write the store
/// refuses is a ``BookmarkIndexError`` that changes nothing, every reopen (and the one at the
/// end) gives back the model's index, and `verify` then finds no damage.
struct StoreOperationsTarget: FuzzTarget {
    static let name = "store"
    let directory: URL

    init() throws {
        directory = try scratchDirectory(Self.name)
    }

    static var options: JournalStorage.Options {
        var options = JournalStorage.Options()
        options.durability = .none
        options.checkpointMinimumBytes = 1_024
        options.compactionMinimumBytes = 4_096
        return options
    }

    func run(_ input: [UInt8]) {
        try? FileManager.default.removeItem(at: directory)
        let directory = self.directory
        do {
            try blocking {
                var session = Session(reader: InputReader(input), store: try await BookmarksIndexStore.open(directory: directory, options: Self.options))
                try await session.run(directory: directory)
            }
        } catch {
            broken("a store operation failed unexpectedly: \(error)")
        }
    }

    static func seeds() throws -> [[UInt8]] {
        // Upserts of each kind, a query, a compaction, a reopen, removals and metadata.
        [
            [0, 1, 2, 3, 0, 5, 7, 9, 0, 12, 1, 1, 4, 3, 2, 6, 5, 0, 9, 9, 9, 7, 1, 4, 8, 0],
            Array(repeating: 0, count: 40) + [5, 6, 4, 2, 1, 7, 3, 0],
            Array("\u{0}ル\u{0}タイトル é Σ ß".utf8) + [4, 4, 4, 6, 5],
        ]
    }
}

/// One run of the store target: the store, the model, and what is left of the input.
private struct Session {
    var reader: InputReader
    var store: BookmarksIndexStore
    var model = BookmarkIndexState()

    static let tags = ["オリジナル", "女の子", "original", "風景", "R-18", "ル", "Σ", "ß", ""]
    static let texts = ["", "ル\u{0}", "タイ", "é", "É\u{0}", "\u{0}", "a", "ＡＢ", "σ", "İ", "e\u{301}"]

    mutating func run(directory: URL) async throws {
        var steps = 0
        while !reader.isAtEnd, steps < 64 {
            steps += 1
            switch reader.byte() % 8 {
            case 0, 1: try await write((0..<(1 + Int(reader.byte() % 4))).map { _ in change() })
            case 2: try await write([.remove(BookmarkKey(illustID: Int(reader.byte() % 32), restrict: restrict()))])
            case 3: try await write([.removeAll(restrict())])
            case 4: await query()
            case 5: try await store.compact()
            case 6: try await reopen(directory: directory)
            default: try await write([.setMetadata(metadata(), for: restrict())])
            }
        }
        try await reopen(directory: directory)
        try await store.close()
        let health = try await JournalStorage.verify(directory: directory)
        if !health.damage.isEmpty { broken("verify found damage in a journal the store wrote: \(health.damage)") }
    }

    mutating func restrict() -> Restrict { reader.byte() & 1 == 0 ? .public : .private }

    mutating func date() -> Date {
        switch reader.byte() % 6 {
        case 0: Date(timeIntervalSinceReferenceDate: reader.double())
        case 1: Date(timeIntervalSinceReferenceDate: Double(reader.int64() % 4_000_000_000))
        default: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(reader.byte()))
        }
    }

    mutating func change() -> BookmarkChange {
        let id = Int(reader.byte() % 32)
        let reasons: [VanishReason?] = [nil, nil, nil] + VanishReason.allCases
        let illust = BookmarkedIllustSnapshot(
            id: id, title: reader.pick(Self.texts) + reader.string(upTo: 12), type: reader.pick([.illust, .manga, .ugoira]),
            artistID: Int(reader.byte()), artistName: reader.string(upTo: 6),
            tags: (0..<Int(reader.byte() % 4)).map { _ in ArtworkTag(name: reader.pick(Self.tags), translatedName: reader.pick([nil, "girl", "Σ"])) },
            thumbnailURL: reader.pick([nil, "https://i.pximg.net/x.jpg"]), pageCount: Int(reader.byte()),
            xRestrict: Int(reader.byte() % 3), aiType: Int(reader.byte() % 3), createDate: date(),
            vanishReason: reader.pick(reasons), totalBookmarks: Int(reader.int64() % 1_000_000)
        )
        return .upsert(IndexedBookmark(
            illust: illust, restrict: restrict(), serverOrder: reader.byte() < 16 ? reader.int64() : Int64(reader.byte()),
            firstIndexedAt: date(), lastSeenAt: date(), vanishedAt: reader.byte() & 1 == 0 ? nil : date()
        ))
    }

    mutating func metadata() -> BookmarkIndexMetadata {
        let payload = try? VersionedPayload(version: Int(reader.byte() % 4), json: Data(reader.bytes(upTo: 24)))
        return BookmarkIndexMetadata(lastFullSync: reader.byte() & 1 == 0 ? nil : date(), lastDeltaSync: date(), syncState: payload)
    }

    /// Writes `changes`: applied to the model too when the store takes them.
    mutating func write(_ changes: [BookmarkChange]) async throws {
        do {
            try await store.apply(changes)
            model.apply(changes)
        } catch let error as BookmarkIndexError where error.code == .invalidArgument {
            // Refused before anything was written: the model stays as it is.
        }
        try await expectSameIndex("after a write")
    }

    mutating func query() async {
        let filter = BookmarkFilter(
            allOf: reader.byte() & 1 == 0 ? [] : [reader.pick(Self.tags)], anyOf: reader.byte() & 1 == 0 ? [] : [reader.pick(Self.tags), reader.pick(Self.tags)],
            noneOf: reader.byte() & 1 == 0 ? [] : [reader.pick(Self.tags)], text: reader.pick(Self.texts + [nil]) ?? nil,
            visibility: reader.pick(BookmarkFilter.Visibility.allCases)
        )
        let restrict = restrict()
        let limit = reader.pick([nil, 0, 1, 5, 30]), offset = Int(reader.byte() % 8)
        let found = await store.bookmarks(in: restrict, matching: filter, limit: limit, offset: offset)
        if found != model.bookmarks(in: restrict, matching: filter, limit: limit, offset: offset) { broken("the store's query answered otherwise than the model's") }
        if await store.count(in: restrict, matching: filter) != model.count(in: restrict, matching: filter) { broken("the store's count differs") }
        if await store.coOccurringTags(in: restrict, matching: filter, limit: 10) != model.coOccurringTags(in: restrict, matching: filter, limit: 10) {
            broken("the store's co-occurring tags differ")
        }
        let visibility = filter.visibility
        if await store.tagHistogram(in: restrict, visibility: visibility) != model.tagHistogram(in: restrict, visibility: visibility) {
            broken("the store's histogram differs")
        }
    }

    mutating func reopen(directory: URL) async throws {
        try await store.close()
        store = try await BookmarksIndexStore.open(directory: directory, options: StoreOperationsTarget.options)
        try await expectSameIndex("after a reopen")
    }

    func expectSameIndex(_ when: String) async throws {
        let state = await store.state
        for restrict in Restrict.allCases {
            let all = BookmarkFilter(visibility: .all)
            if state.bookmarks(in: restrict, matching: all) != model.bookmarks(in: restrict, matching: all) {
                broken("the \(restrict) list differs from the model's \(when)")
            }
            if state.metadata(for: restrict) != model.metadata(for: restrict) { broken("the \(restrict) metadata differs \(when)") }
            if state.tagHistogram(in: restrict, visibility: .all) != model.tagHistogram(in: restrict, visibility: .all) {
                broken("the \(restrict) histogram differs \(when)")
            }
        }
    }
}
