import BookmarkIndex
import Foundation
import PixivAPI

extension PixivIllust {
    /// The illust as the index keeps it.
    ///
    /// Works Pixiv sends with `visible: false` (hidden or deleted after they were bookmarked)
    /// map to a snapshot whose `isVisible` is `false`; their placeholder title and tags
    /// are kept as sent (empty). An unparsable `create_date` maps to the epoch.
    public var snapshot: BookmarkedIllustSnapshot {
        BookmarkedIllustSnapshot(
            id: id,
            title: title,
            type: IllustType(rawValue: type),
            artistID: user.id,
            artistName: user.name,
            tags: tags.map { TagRef(name: $0.name, translatedName: $0.translatedName) },
            thumbnailURL: imageURLs.squareMedium.isEmpty ? nil : imageURLs.squareMedium,
            pageCount: pageCount,
            width: width,
            height: height,
            xRestrict: xRestrict,
            aiType: illustAIType,
            createDate: createDate ?? Date(timeIntervalSince1970: 0),
            isVisible: isVisible,
            totalBookmarks: totalBookmarks
        )
    }
}

extension Restrict {
    /// The same list as PixivAPI spells it.
    public var bookmarkRestrict: BookmarkRestrict {
        switch self {
        case .public: .public
        case .private: .private
        }
    }

    /// The index's spelling of PixivAPI's list.
    public init(_ restrict: BookmarkRestrict) {
        switch restrict {
        case .public: self = .public
        case .private: self = .private
        }
    }
}
