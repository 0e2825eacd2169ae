import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI

/// FakePixiv's illust JSON as it was built before the fake wrote it by hand: a `[String: Any]`
/// for `JSONSerialization`, kept verbatim as the reference the hand-written page must equal
/// (``FakePixivPageTests``).
enum ReferencePixivJSON {
    private static let japanTime = Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 9 * 3600)!).timeZoneSeparator(.colon)

    /// The illust object of `work` as served; `withheld` is why it is a placeholder, if it is one.
    static func illust(_ work: BookmarkedIllustSnapshot, withheld: PixivIllust.InvisibleReason?, isBookmarked: Bool, translate: Bool) -> [String: Any] {
        let thumbnail = work.thumbnailURL ?? FakePixiv.placeholderImageURL
        let base = thumbnail.replacingOccurrences(of: "/c/360x360_70", with: "")
            .replacingOccurrences(of: "_square1200", with: "_master1200")
        let single = work.pageCount <= 1
        let imageURLs: [String: Any] = work.isVisible
            ? ["square_medium": thumbnail, "medium": base.replacingOccurrences(of: "img-master", with: "c/540x540_70/img-master"), "large": base.replacingOccurrences(of: "img-master", with: "c/600x1200_90/img-master")]
            : ["square_medium": thumbnail, "medium": thumbnail, "large": thumbnail]
        let original = base.replacingOccurrences(of: "img-master", with: "img-original").replacingOccurrences(of: "_master1200", with: "")
        var metaSinglePage: [String: Any] = [:]
        var metaPages: [[String: Any]] = []
        if work.isVisible && single {
            metaSinglePage["original_image_url"] = original
        } else if work.isVisible {
            metaPages = (0..<work.pageCount).map { page in
                let swap = { (url: String) in url.replacingOccurrences(of: "_p0", with: "_p\(page)") }
                return ["image_urls": [
                    "square_medium": swap(thumbnail), "medium": swap(imageURLs["medium"] as? String ?? ""),
                    "large": swap(imageURLs["large"] as? String ?? ""), "original": swap(original),
                ]]
            }
        } else {
            // A placeholder: every image URL is the placeholder, the original too.
            metaSinglePage["original_image_url"] = thumbnail
        }
        let tags: [[String: Any]] = work.tags.map { tag in
            ["name": tag.name, "translated_name": (translate ? tag.translatedName : nil) ?? NSNull()]
        }
        let series: Any = work.type == .manga && work.id % 3 == 0
            ? ["id": 10_000 + work.artistID, "title": "\(work.artistName) series"] as [String: Any]
            : NSNull()
        return [
            "id": work.id,
            "title": work.title,
            "type": work.type.rawValue,
            "image_urls": imageURLs,
            "caption": "",
            "restrict": withheld == .myPixivOnly ? 1 : 0,
            "user": [
                "id": work.artistID, "name": work.artistName, "account": work.isVisible ? "artist\(work.artistID)" : "",
                "profile_image_urls": withheld == .deleted ? [:] : ["medium": "https://s.pximg.net/common/images/no_profile_s.png"],
                "is_followed": false,
            ] as [String: Any],
            "tags": tags,
            "tools": [String](),
            "create_date": work.createDate.formatted(japanTime),
            "page_count": work.pageCount,
            "width": work.width,
            "height": work.height,
            "sanity_level": !work.isVisible ? 0 : work.xRestrict > 0 ? 6 : 2,
            "x_restrict": work.xRestrict,
            "series": series,
            "meta_single_page": metaSinglePage,
            "meta_pages": metaPages,
            "total_view": work.totalView,
            "total_bookmarks": work.totalBookmarks,
            "is_bookmarked": isBookmarked,
            "visible": work.isVisible,
            "is_muted": false,
            "illust_ai_type": work.aiType,
            "illust_book_style": 0,
            "total_comments": 0,
            "restriction_attributes": [String](),
        ]
    }
}
