import BookmarkIndex
import BookmarkIndexTesting
import BookmarkJSON
import Foundation
import PixivAPI

/// Writes Pixiv's illust JSON from the index's snapshots, as the app API shapes it.
///
/// Written by hand into bytes rather than built as `[String: Any]` for `JSONSerialization`:
/// on Linux that path bridges every dictionary to `NSDictionary` and casts every value back,
/// which made a page of 30 cost about 11 ms of CPU; this writer costs a few hundredths of that.
/// The keys and values are those Pixiv sends (the order of keys is the writer's; JSON does not
/// give it a meaning), and its strings are escaped as Pixiv escapes them
/// (`pixivString(_:)`: `\/`, `\u30aa`).
enum PixivJSON {
    /// The illust object of `work` as served (`AccountState.served(_:)`); `withheld` is why it
    /// is a placeholder, if it is one.
    static func writeIllust(
        _ work: BookmarkedIllustSnapshot, withheld: PixivIllust.InvisibleReason?, isBookmarked: Bool, translate: Bool,
        into json: inout JSONWriter
    ) {
        let visible = work.isVisible
        let thumbnail = work.thumbnailURL ?? FakePixiv.placeholderImageURL
        let base = thumbnail.replacingEvery("/c/360x360_70", with: "").replacingEvery("_square1200", with: "_master1200")
        let medium = visible ? base.replacingEvery("img-master", with: "c/540x540_70/img-master") : thumbnail
        let large = visible ? base.replacingEvery("img-master", with: "c/600x1200_90/img-master") : thumbnail
        let original = base.replacingEvery("img-master", with: "img-original").replacingEvery("_master1200", with: "")

        json.raw("{\"id\":"); json.int(work.id)
        json.raw(",\"title\":"); json.pixivString(work.title)
        json.raw(",\"type\":"); json.pixivString(work.type.rawValue)
        json.raw(",\"image_urls\":")
        writeImageURLs(square: thumbnail, medium: medium, large: large, original: nil, into: &json)
        json.raw(",\"caption\":\"\",\"restrict\":"); json.int(withheld == .myPixivOnly ? 1 : 0)
        json.raw(",\"user\":{\"id\":"); json.int(work.artistID)
        json.raw(",\"name\":"); json.pixivString(work.artistName)
        json.raw(",\"account\":"); json.pixivString(visible ? "artist\(work.artistID)" : "")
        if withheld == .deleted {
            json.raw(",\"profile_image_urls\":{}")
        } else {
            json.raw(",\"profile_image_urls\":{\"medium\":"); json.pixivString("https://s.pximg.net/common/images/no_profile_s.png"); json.raw("}")
        }
        json.raw(",\"is_followed\":false},\"tags\":[")
        for (index, tag) in work.tags.enumerated() {
            json.raw(index == 0 ? "{\"name\":" : ",{\"name\":"); json.pixivString(tag.name)
            json.raw(",\"translated_name\":")
            if translate, let translated = tag.translatedName { json.pixivString(translated) } else { json.raw("null") }
            json.raw("}")
        }
        json.raw("],\"tools\":[],\"create_date\":"); json.pixivString(japanTime(work.createDate))
        json.raw(",\"page_count\":"); json.int(work.pageCount)
        json.raw(",\"width\":"); json.int(work.width)
        json.raw(",\"height\":"); json.int(work.height)
        json.raw(",\"sanity_level\":"); json.int(!visible ? 0 : work.xRestrict > 0 ? 6 : 2)
        json.raw(",\"x_restrict\":"); json.int(work.xRestrict)
        json.raw(",\"series\":")
        if work.type == .manga && work.id % 3 == 0 {
            json.raw("{\"id\":"); json.int(10_000 + work.artistID)
            json.raw(",\"title\":"); json.pixivString("\(work.artistName) series"); json.raw("}")
        } else {
            json.raw("null")
        }
        // A placeholder's every image URL is the placeholder, the original too; a visible work
        // of many pages has its originals under meta_pages instead.
        json.raw(",\"meta_single_page\":")
        if !visible || work.pageCount <= 1 {
            json.raw("{\"original_image_url\":"); json.pixivString(visible ? original : thumbnail); json.raw("}")
        } else {
            json.raw("{}")
        }
        json.raw(",\"meta_pages\":[")
        if visible && work.pageCount > 1 {
            for page in 0..<work.pageCount {
                let swap = { (url: String) in url.replacingEvery("_p0", with: "_p\(page)") }
                json.raw(page == 0 ? "{\"image_urls\":" : ",{\"image_urls\":")
                writeImageURLs(square: swap(thumbnail), medium: swap(medium), large: swap(large), original: swap(original), into: &json)
                json.raw("}")
            }
        }
        json.raw("],\"total_view\":"); json.int(work.totalView)
        json.raw(",\"total_bookmarks\":"); json.int(work.totalBookmarks)
        json.raw(",\"is_bookmarked\":"); json.bool(isBookmarked)
        json.raw(",\"visible\":"); json.bool(visible)
        json.raw(",\"is_muted\":false,\"illust_ai_type\":"); json.int(work.aiType)
        json.raw(",\"illust_book_style\":0,\"total_comments\":0,\"restriction_attributes\":[]}")
    }

    private static func writeImageURLs(square: String, medium: String, large: String, original: String?, into json: inout JSONWriter) {
        json.raw("{\"square_medium\":"); json.pixivString(square)
        json.raw(",\"medium\":"); json.pixivString(medium)
        json.raw(",\"large\":"); json.pixivString(large)
        if let original { json.raw(",\"original\":"); json.pixivString(original) }
        json.raw("}")
    }

    /// `date` in Japan time as Pixiv writes it, `2024-01-01T09:00:00+09:00` (whole seconds,
    /// rounded down): what `Date.ISO8601FormatStyle` with a +09:00 zone and a colon in it writes.
    static func japanTime(_ date: Date) -> String {
        let time = JapanTime(date)
        func two(_ value: Int) -> String { JapanTime.padded(value, 2) }
        return "\(JapanTime.padded(time.year, 4))-\(two(time.month))-\(two(time.day))T\(two(time.hour)):\(two(time.minute)):\(two(time.second))+09:00"
    }
}

extension String {
    /// The string with every occurrence of `target` (non-empty) replaced by `replacement`,
    /// matched byte for byte in UTF-8: Foundation's `replacingOccurrences(of:with:)` without its
    /// bridging to `NSString`, which was a tenth of the cost of a bookmark page.
    func replacingEvery(_ target: StaticString, with replacement: String) -> String {
        var source = self
        return source.withUTF8 { utf8 -> String in
            // memchr and memcmp: FakePixiv derives every image URL of every work it sends with
            // this, and a test walking 100,000 bookmarks runs it unoptimized.
            let pattern = UnsafeRawBufferPointer(start: target.utf8Start, count: target.utf8CodeUnitCount)
            let text = UnsafeRawBufferPointer(utf8)
            var result: [UInt8] = []
            var copied = 0
            while let at = firstOffset(of: pattern, in: text, from: copied) {
                if result.isEmpty { result.reserveCapacity(utf8.count + 32) }
                result.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied..<at]))
                var replacement = replacement
                replacement.withUTF8 { result.append(contentsOf: $0) }
                copied = at + pattern.count
            }
            guard copied > 0 else { return self }
            result.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied...]))
            return String(decoding: result, as: UTF8.self)
        }
    }
}
