import Foundation
import Testing
@testable import PixivAPI

/// Wrong types, missing fields, `null` where an object belongs, and JSON written in every odd
/// way: the client decodes each exactly as `JSONDecoder` does (both succeed with the same value,
/// or both fail), and its own reader, when it reads a value at all, reads that value.
@Suite struct WireDecodingOddShapeTests {
    typealias Outcome = WireDecodingTests.Outcome

    /// What replaces a value: every JSON kind, and the edges of each.
    static var replacements: [Any] { [NSNull(), "x", "", 7, -1, 0, 1.5, true, false, [String: Any](), [Any](), ["x"], ["id": 1, "name": "n"] as [String: Any]] }

    /// `value` with one change somewhere: a member removed, or a value (of a member or of an
    /// element) replaced by one of ``replacements``, or by one of its own variants.
    static func variants(of value: Any) -> [Any] {
        var result: [Any] = []
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() {
                var removed = object
                removed[key] = nil
                result.append(removed)
                for replacement in replacements + variants(of: object[key]!) {
                    var changed = object
                    changed[key] = replacement
                    result.append(changed)
                }
            }
        } else if let array = value as? [Any] {
            for index in array.indices {
                for replacement in replacements + variants(of: array[index]) {
                    var changed = array
                    changed[index] = replacement
                    result.append(changed)
                }
            }
        }
        return result
    }

    /// Decodes every variant of `json` both ways; returns how many the reader read on its own.
    @discardableResult
    static func expectAgreement<Value: PixivJSONReadable & Equatable>(_ type: Value.Type, everyVariantOf json: String) throws -> (variants: Int, read: Int) {
        let tree = try JSONSerialization.jsonObject(with: Data(json.utf8))
        var read = 0
        let variants = variants(of: tree)
        for variant in variants {
            let body = try JSONSerialization.data(withJSONObject: variant)
            let outcome = Outcome(type, body)
            #expect(outcome.agrees, "\(String(decoding: body, as: UTF8.self))")
            if outcome.fast != nil { read += 1 }
        }
        return (variants.count, read)
    }

    @Test func everyOneChangeToABookmarksPage() throws {
        let counts = try Self.expectAgreement(BookmarksPage.self, everyVariantOf: Fixtures.bookmarksPage)
        #expect(counts.variants > 1000)
        #expect(counts.read > 0)
        try Self.expectAgreement(BookmarksPage.self, everyVariantOf: Fixtures.lastPageWithInvisibleWorks)
    }

    @Test func everyOneChangeToTheOtherResponses() throws {
        try Self.expectAgreement(BookmarkDetailEnvelope.self, everyVariantOf: Fixtures.bookmarkDetail)
        try Self.expectAgreement(BookmarkTagsPage.self, everyVariantOf: Fixtures.bookmarkTags)
        try Self.expectAgreement(UserDetail.self, everyVariantOf: Fixtures.userDetail)
    }

    /// Texts `JSONSerialization` never writes.
    static let oddTexts: [String] = [
        #"{"illusts":[{"id":1.0}]}"#, #"{"illusts":[{"id":1e2}]}"#, #"{"illusts":[{"id":-0}]}"#,
        #"{"illusts":[{"id":99999999999999999999}]}"#, #"{"illusts":[{"id":01}]}"#,
        #"{"illusts":[{"id":1,"id":2}]}"#, #"{"illusts":[{"id":1,"title":"a","title":null}]}"#,
        #"{"illusts":[],"illusts":[{"id":3}]}"#, #"{"illusts":[{"id":1,"x":1,"x":2}]}"#,
        #"{"\u0069llusts":[{"\u0069d":4,"t\u0069tle":"\u732b\ud83d\ude00\/"}]}"#,
        "\u{FEFF}{\"illusts\":[]}", " \n\t{\"illusts\":[]} \r\n", #"{"illusts":[]} x"#, #"{"illusts":[]}{}"#,
        #"[{"illusts":[]}]"#, "", "null", #"{"illusts":null}"#, #"{"illusts":[null]}"#, #"{"illusts":{}}"#,
        #"{"illusts":[{"id":1,"unknown":1E400}]}"#, #"{"illusts":[{"id":1,"unknown":"\ud800"}]}"#,
        #"{"illusts":[{"id":1,"unknown":"\u00"}]}"#, #"{"illusts":[{"id":1,"title":"tab\there"}]}"#,
        #"{"illusts":[{"id":1,"unknown":[1,]}]}"#, #"{"illusts":[{"id":1,}]}"#, #"{"illusts":[{"id":1 "title":"t"}]}"#,
        #"{"illusts":[{"id":1,"visible":tru}]}"#, #"{"illusts":[{"id":1,"visible":"true"}]}"#, #"{"illusts":[{"id":"1"}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":"a","translated_name":null,"name":"b"}]}]}"#,
        // Tags as Pixiv writes them are read directly; each of these leaves that shape somewhere.
        #"{"illusts":[{"id":1,"tags":[{"name":"a","translated_name":"b","extra":1}]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":"a"},{"name":"b","translated_name":null}]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":"a" ,"translated_name":"b"},{ "name":"c","translated_name":"d" }]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"translated_name":"b","name":"a"}]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":"a\u0062\n","translated_name":"\u732b"}]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":1,"translated_name":"b"}]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":null,"translated_name":"b"}]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":"a","translated_name":7}]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":"a","translated_name":"b","translated_name":"c"}]}]}"#,
        #"{"illusts":[{"id":1,"tags":[{"name":"a","translated_name":"b"]}]}"#,
        #"{"illusts":[{"id":1,"meta_single_page":null,"series":{"id":2,"title":"s","extra":[]}}]}"#,
        #"{"illusts":[{"id":1,"meta_single_page":[],"series":null}]}"#,
        #"{"illusts":[{"id":1,"user":{"id":2,"profile_image_urls":null}}]}"#,
        #"{"illusts":[{"id":1,"user":{"id":2,"profile_image_urls":{"medium":null}}}]}"#,
        #"{"illusts":[{"id":1,"meta_pages":[{"image_urls":null}]}]}"#,
        #"{"illusts":[{"id":1,"meta_pages":[{}]}]}"#,
        #"{"illusts":[],"next_url":"ftp://x/y"}"#, #"{"illusts":[],"next_url":"/relative"}"#, #"{"illusts":[],"next_url":7}"#,
        #"{"illusts":[],"next_url":"https://app-api.pixiv.net/v1/user/bookmarks/illust?max_bookmark_id=1"}"#,
        #"{"illusts":[{"id":1,"unknown":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}]}",
        #"{"illusts":[{"id":1,"unknown":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}]}",
    ]

    /// The reader refuses what it cannot read as `JSONDecoder` would, and the client then
    /// answers as `JSONDecoder`.
    @Test(arguments: oddTexts)
    func oddTextsOfABookmarksPage(_ json: String) {
        #expect(Outcome(BookmarksPage.self, Data(json.utf8)).agrees)
    }

    /// Bytes that are not UTF-8, in a value the client reads and in one it skips.
    @Test func invalidUTF8() {
        for prefix in [#"{"illusts":[{"id":1,"title":""#, #"{"illusts":[{"id":1,"unknown":""#] {
            let body = Data(prefix.utf8) + Data([0xC3, 0x28, 0xFF]) + Data(#""}]}"#.utf8)
            #expect(Outcome(BookmarksPage.self, body).agrees, "\(prefix)")
        }
    }
}
