import BookmarkIndex
import Foundation
import PixivAPI

extension PixivIllust {
    /// The illust as the index keeps it.
    ///
    /// A placeholder (a work deleted, limited to My pixiv, or otherwise hidden after it was
    /// bookmarked: `invisibleReason` is set) maps to a snapshot with that reason
    /// as its `vanishReason`, and its placeholder fields as sent (empty title and tags); the
    /// index keeps what it knew of the work over them. An unparsable `create_date` maps to the
    /// epoch.
    public var snapshot: BookmarkedIllustSnapshot {
        PixivIllustSummary(self).snapshot
    }
}

extension PixivIllustSummary {
    /// The work as the index keeps it: ``PixivAPI/PixivIllust/snapshot`` of the illust it
    /// summarizes.
    var snapshot: BookmarkedIllustSnapshot {
        BookmarkedIllustSnapshot(
            id: id,
            title: title,
            type: IllustType(rawValue: type),
            artistID: userID,
            artistName: userName,
            tags: tags.map { ArtworkTag(name: $0.name, translatedName: $0.translatedName) },
            thumbnailURL: squareMedium.isEmpty ? nil : squareMedium,
            pageCount: pageCount,
            width: width,
            height: height,
            xRestrict: xRestrict,
            aiType: illustAIType,
            createDate: createDate ?? Date(timeIntervalSince1970: 0),
            vanishReason: invisibleReason.map(VanishReason.init),
            totalBookmarks: totalBookmarks,
            totalView: totalView
        )
    }
}

extension VanishReason {
    /// The index's word for why PixivAPI says a work is a placeholder.
    public init(_ reason: PixivIllust.InvisibleReason) {
        switch reason {
        case .deleted: self = .deleted
        case .myPixivOnly: self = .myPixivOnly
        case .sanityLimited: self = .sanityLimited
        case .unviewable: self = .unviewable
        case .unknown: self = .unknown
        case .hiddenByR18Setting: self = .hiddenByR18Setting
        case .hiddenByR18GSetting: self = .hiddenByR18GSetting
        }
    }

    /// The same reason as PixivAPI spells it.
    public var invisibleReason: PixivIllust.InvisibleReason {
        switch self {
        case .deleted: .deleted
        case .myPixivOnly: .myPixivOnly
        case .sanityLimited: .sanityLimited
        case .unviewable: .unviewable
        case .unknown: .unknown
        case .hiddenByR18Setting: .hiddenByR18Setting
        case .hiddenByR18GSetting: .hiddenByR18GSetting
        }
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
