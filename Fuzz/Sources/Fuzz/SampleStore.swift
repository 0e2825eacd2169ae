import BookmarkIndex
import Foundation

/// A small store made the same way every time: rows of every kind in both lists (tags with and
/// without translations, vanished works, non-ASCII text), metadata with a sync record, compacted
/// so that it has a checkpoint.
enum SampleStore {
    static let created = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// Writes the store into `directory` (emptied first).
    static func write(to directory: URL) throws {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var options = JournalStorage.Options()
        options.durability = .none
        options.checkpointMinimumBytes = 0
        options.now = { created }
        try blocking { [options] in
            let store = try await BookmarksIndexStore.open(directory: directory, options: options)
            try await store.apply(changes)
            try await store.compact()
            try await store.close()
        }
    }

    /// The journal of the store, as bytes.
    static func journal() throws -> [UInt8] {
        let directory = try scratchDirectory("sample")
        defer { try? FileManager.default.removeItem(at: directory) }
        try write(to: directory)
        return Array(try Data(contentsOf: directory.appendingPathComponent(JournalStorage.journalFileName)))
    }

    static var changes: [BookmarkChange] {
        let tags = [
            ArtworkTag(name: "オリジナル", translatedName: "original"), ArtworkTag(name: "女の子", translatedName: "girl"),
            ArtworkTag(name: "風景"), ArtworkTag(name: "R-18"), ArtworkTag(name: "Fate/GrandOrder"),
        ]
        let reasons: [VanishReason?] = [nil, nil, nil, .deleted, .myPixivOnly, .unknown]
        var changes: [BookmarkChange] = []
        for id in 1...24 {
            let restrict: Restrict = id % 3 == 0 ? .private : .public
            let illust = BookmarkedIllustSnapshot(
                id: 1000 + id, title: id % 2 == 0 ? "タイトル \(id)" : "Title \(id) é", type: id % 5 == 0 ? .manga : .illust,
                artistID: 10 + id % 4, artistName: "作者 \(id % 4)", tags: Array(tags[(id % 5)...].prefix(1 + id % 3)),
                thumbnailURL: "https://i.pximg.net/c/250x250_80_a2/img-master/img/\(id)_p0_square1200.jpg",
                pageCount: 1 + id % 3, width: 1200, height: 900, xRestrict: id % 7 == 0 ? 1 : 0, aiType: id % 3,
                createDate: created.addingTimeInterval(-Double(id) * 3600), vanishReason: reasons[id % reasons.count],
                totalBookmarks: id * 17
            )
            changes.append(.upsert(IndexedBookmark(
                illust: illust, restrict: restrict, serverOrder: Int64(100 - id),
                firstIndexedAt: created, lastSeenAt: created.addingTimeInterval(Double(id))
            )))
        }
        let record = #"{"cursor":{"next":"https://app-api.pixiv.net/v1/user/bookmarks/illust?max_bookmark_id=1000","started":800000000,"pages":1,"order":70,"above":true},"unbookmarked":[[1030,800000100]]}"#
        let metadata = BookmarkIndexMetadata(
            lastFullSync: created, lastDeltaSync: nil,
            syncState: try? VersionedPayload(version: 2, json: Data(record.utf8))
        )
        changes.append(.setMetadata(metadata, for: .public))
        changes.append(.remove(BookmarkKey(illustID: 1002, restrict: .public)))
        return changes
    }
}
