import BookmarkIndex
import Foundation

// How the tool prints bookmarks: as text rows, as JSON objects (`list --json`, `export`) and as
// CSV (`list --csv`, `export --format csv`).

func isoDate(_ date: Date) -> String {
    date.formatted(.iso8601)
}

/// `date` to the minute, in UTC: "2026-12-01 09:13 UTC".
func minuteDate(_ date: Date) -> String {
    String(isoDate(date).prefix(16)).replacingOccurrences(of: "T", with: " ") + " UTC"
}

enum TextRow {
    /// A bookmark on one line: key, title, artist, tags. A vanished work's title says why.
    static func bookmark(_ bookmark: IndexedBookmark) -> String {
        let illust = bookmark.illust
        var title = illust.title
        if let reason = illust.vanishReason {
            title = "(\(reason)) " + (bookmark.vanishedAt == nil ? "nothing kept" : illust.title)
        }
        let tags = illust.tags.map(\.name).joined(separator: ", ")
        return "\(Terminal.accent(Terminal.fit(bookmark.key.description, columns: 18))) \(Terminal.fit(title, columns: 28)) \(Terminal.fit(illust.artistName, columns: 16)) \(Terminal.dim(tags))"
    }

    /// A vanished work on one line: key, why, since when, and the title, artist and tags the
    /// index kept (or that it kept nothing: the work was a placeholder already when first indexed).
    static func vanished(_ bookmark: IndexedBookmark) -> String {
        let illust = bookmark.illust
        let reason = illust.vanishReason.map(\.description) ?? "visible"
        let key = Terminal.accent(Terminal.fit(bookmark.key.description, columns: 18))
        guard let vanishedAt = bookmark.vanishedAt else {
            let since = "before \(minuteDate(bookmark.firstIndexedAt))"
            return "\(key) \(Terminal.fit(reason, columns: 15)) \(Terminal.fit(since, columns: 30)) \(Terminal.dim("(nothing kept: a placeholder when first indexed)"))"
        }
        let tags = illust.tags.map { tag in tag.translatedName.map { "\(tag.name) (\($0))" } ?? tag.name }.joined(separator: ", ")
        return "\(key) \(Terminal.fit(reason, columns: 15)) \(Terminal.fit("since \(minuteDate(vanishedAt))", columns: 30)) \(Terminal.fit(illust.title, columns: 28)) \(Terminal.fit(illust.artistName, columns: 16)) \(Terminal.dim(tags))"
    }
}

func jsonObject(_ bookmark: IndexedBookmark) -> JSONValue {
    let illust = bookmark.illust
    return [
        "key": .string(bookmark.key.description), "illustID": .int(illust.id), "restrict": .string(bookmark.restrict.rawValue),
        "title": .string(illust.title), "type": .string(illust.type.rawValue), "artistID": .int(illust.artistID),
        "artistName": .string(illust.artistName),
        "tags": .array(illust.tags.map { ["name": .string($0.name), "translatedName": JSONValue($0.translatedName)] }),
        "thumbnailURL": JSONValue(illust.thumbnailURL), "pageCount": .int(illust.pageCount), "width": .int(illust.width),
        "height": .int(illust.height), "xRestrict": .int(illust.xRestrict), "aiType": .int(illust.aiType),
        "createDate": JSONValue(illust.createDate), "visible": .bool(illust.isVisible),
        "totalBookmarks": .int(illust.totalBookmarks), "totalView": .int(illust.totalView),
        "vanishReason": JSONValue(illust.vanishReason?.rawValue), "vanishedAt": JSONValue(bookmark.vanishedAt),
        "firstIndexedAt": JSONValue(bookmark.firstIndexedAt), "lastSeenAt": JSONValue(bookmark.lastSeenAt),
    ]
}

enum CSV {
    static let header = "key,illust_id,restrict,title,artist_id,artist_name,tags,translated_tags,type,page_count,visible,total_bookmarks,create_date,thumbnail_url,vanish_reason,vanished_at"

    static func row(_ bookmark: IndexedBookmark) -> String {
        let illust = bookmark.illust
        return [
            bookmark.key.description, String(illust.id), bookmark.restrict.rawValue, illust.title, String(illust.artistID),
            illust.artistName, illust.tags.map(\.name).joined(separator: "|"),
            illust.tags.map { $0.translatedName ?? "" }.joined(separator: "|"), illust.type.rawValue, String(illust.pageCount),
            String(illust.isVisible), String(illust.totalBookmarks), isoDate(illust.createDate), illust.thumbnailURL ?? "",
            illust.vanishReason?.rawValue ?? "", bookmark.vanishedAt.map(isoDate) ?? "",
        ].map(field).joined(separator: ",")
    }

    /// RFC 4180: quote a field holding a comma, quote or line break, doubling its quotes.
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
