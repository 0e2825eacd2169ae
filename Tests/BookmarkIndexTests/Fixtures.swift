import BookmarkIndex
import Foundation

/// Builds a row with the given tags; tags are written "name" or "name=translation". A row with
/// `vanished` is a vanished work (with `vanishedAt`, one whose content the index kept).
func row(
    _ id: Int,
    _ restrict: Restrict = .public,
    tags: [String] = [],
    order: Int64 = 0,
    title: String = "",
    artist: String = "",
    vanished: VanishReason? = nil,
    vanishedAt: TimeInterval? = nil,
    seen: TimeInterval = 1_000
) -> IndexedBookmark {
    let tagRefs = tags.map { spec -> ArtworkTag in
        let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
        return ArtworkTag(name: parts[0], translatedName: parts.count > 1 ? parts[1] : nil)
    }
    return IndexedBookmark(
        illust: BookmarkedIllustSnapshot(
            id: id, title: title, artistID: id % 100, artistName: artist,
            tags: tagRefs, vanishReason: vanished
        ),
        restrict: restrict,
        serverOrder: order,
        firstIndexedAt: Date(timeIntervalSince1970: seen),
        lastSeenAt: Date(timeIntervalSince1970: seen),
        vanishedAt: vanishedAt.map(Date.init(timeIntervalSince1970:))
    )
}

extension Sequence<IndexedBookmark> {
    var ids: [Int] { map(\.illust.id) }
}
