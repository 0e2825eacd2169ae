import BookmarkJSON
import Foundation

extension ListIndex {
    /// One bookmark's fields, with its strings and tags as ranges of the list's arenas.
    ///
    /// A checkpoint writes rows as raw memory: the fields are laid out with no implicit
    /// padding (so no stray bytes reach the disk), and every field must be listed in
    /// ``layoutFingerprint``, which a checkpoint records so a build with another layout ignores it.
    struct Row: Sendable, BitwiseCopyable {
        var illustID: Int
        var serverOrder: Int64
        var firstIndexedAt: Double
        var lastSeenAt: Double
        var createDate: Double
        /// When the index saw the work vanish; meaningful with ``hasVanishedAtFlag`` only.
        var vanishedAt: Double
        var artistID: Int
        var totalBookmarks: Int
        var pageCount: Int
        var width: Int
        var height: Int
        var xRestrict: Int
        var aiType: Int
        /// Where the title, artist name, thumbnail URL and type are, in that order, in ``text``.
        var textStart: Int
        /// Where the row's tags are in ``tagRefs``, in Pixiv's order.
        var tagStart: Int
        var titleLength: UInt32
        var artistNameLength: UInt32
        var thumbnailLength: UInt32
        var typeLength: UInt32
        var tagCount: UInt32
        /// The stamp of the row's live entry in ``OrderList``.
        var orderStamp: UInt32
        var flags: UInt8
        /// 0 for a visible work, else ``VanishReason`` case number + 1 (``reasonCode(_:)``).
        var vanishReason: UInt8
        var padding16: UInt16 = 0
        /// The view count, kept up to `UInt32.max` (four hundred times any work's): in the four
        /// bytes the record had as padding, so keeping it cost no memory.
        var totalView: UInt32

        static let isLiveFlag: UInt8 = 1
        static let hasThumbnailFlag: UInt8 = 4
        static let hasVanishedAtFlag: UInt8 = 8

        var isLive: Bool { flags & Self.isLiveFlag != 0 }
        var isVisible: Bool { vanishReason == 0 }
        var hasThumbnail: Bool { flags & Self.hasThumbnailFlag != 0 }
        var hasVanishedAt: Bool { flags & Self.hasVanishedAtFlag != 0 }
        /// Whether the row holds the work's content: it is visible, or vanished after the index
        /// had seen it (a placeholder does not replace what the index knew).
        var hasContent: Bool { isVisible || hasVanishedAt }
        var textLength: Int { Int(titleLength) + Int(artistNameLength) + Int(thumbnailLength) + Int(typeLength) }
        /// Where the row's texts are in ``text``, all four end to end.
        var textRange: Range<Int> { textStart..<textStart + textLength }
        var tagRange: Range<Int> { tagStart..<tagStart + Int(tagCount) }

        /// How a row stores `reason`.
        static func reasonCode(_ reason: VanishReason?) -> UInt8 {
            reason.map { UInt8(VanishReason.allCases.firstIndex(of: $0)! + 1) } ?? 0
        }

        /// The reason the row stores; `nil` for a visible work. The code must be one
        /// ``reasonCode(_:)`` gives (rows from a checkpoint are checked for it).
        var reason: VanishReason? {
            vanishReason == 0 ? nil : VanishReason.allCases[Int(vanishReason) - 1]
        }

        /// Each field's offset and size, and the row's size and stride, hashed: equal only for
        /// builds that lay rows out alike.
        static let layoutFingerprint: UInt64 = {
            func field<Value>(_ path: KeyPath<Row, Value>) -> [Int] {
                [MemoryLayout<Row>.offset(of: path) ?? -1, MemoryLayout<Value>.size]
            }
            let fields: [[Int]] = [
                field(\.illustID), field(\.serverOrder), field(\.firstIndexedAt), field(\.lastSeenAt),
                field(\.createDate), field(\.vanishedAt), field(\.artistID), field(\.totalBookmarks), field(\.pageCount),
                field(\.width), field(\.height), field(\.xRestrict), field(\.aiType), field(\.textStart),
                field(\.tagStart), field(\.titleLength), field(\.artistNameLength), field(\.thumbnailLength),
                field(\.typeLength), field(\.tagCount), field(\.orderStamp), field(\.flags), field(\.vanishReason), field(\.totalView),
                [MemoryLayout<Row>.size, MemoryLayout<Row>.stride],
                [MemoryLayout<OrderList.Entry>.offset(of: \.order) ?? -1, MemoryLayout<OrderList.Entry>.offset(of: \.slot) ?? -1,
                 MemoryLayout<OrderList.Entry>.offset(of: \.stamp) ?? -1, MemoryLayout<OrderList.Entry>.stride],
            ]
            return fields.joined().map(Int64.init).withUnsafeBytes { XXH64.hash($0) }
        }()
    }
}

extension ListIndex.Row {
    /// The row of `bookmark`, its tags (`tagCount` of them) and texts (a thumbnail code of
    /// `thumbnailLength` bytes) still to be placed in the list's arenas. A visible work's row
    /// has no vanished date, whatever `bookmark` carries.
    init(_ bookmark: IndexedBookmark, tagCount: Int, thumbnailLength: Int) {
        let illust = bookmark.illust
        let vanishedAt = illust.isVisible ? nil : bookmark.vanishedAt
        self.init(
            illustID: illust.id, serverOrder: bookmark.serverOrder,
            firstIndexedAt: bookmark.firstIndexedAt.timeIntervalSinceReferenceDate,
            lastSeenAt: bookmark.lastSeenAt.timeIntervalSinceReferenceDate,
            createDate: illust.createDate.timeIntervalSinceReferenceDate,
            vanishedAt: vanishedAt?.timeIntervalSinceReferenceDate ?? 0,
            artistID: illust.artistID, totalBookmarks: illust.totalBookmarks, pageCount: illust.pageCount,
            width: illust.width, height: illust.height, xRestrict: illust.xRestrict, aiType: illust.aiType,
            textStart: 0, tagStart: 0,
            titleLength: UInt32(illust.title.utf8.count),
            artistNameLength: UInt32(illust.artistName.utf8.count),
            thumbnailLength: UInt32(thumbnailLength),
            typeLength: UInt32(illust.type.rawValue.utf8.count),
            tagCount: UInt32(tagCount), orderStamp: 0,
            flags: Self.isLiveFlag | (illust.thumbnailURL != nil ? Self.hasThumbnailFlag : 0) | (vanishedAt != nil ? Self.hasVanishedAtFlag : 0),
            vanishReason: Self.reasonCode(illust.vanishReason),
            totalView: UInt32(clamping: illust.totalView)
        )
    }
}
