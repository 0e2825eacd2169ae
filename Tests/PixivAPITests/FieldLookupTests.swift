import BookmarkJSON
import Foundation
import Testing
@testable import PixivAPI

/// The readers' field lookup, which tries the field after the last one found first, and the
/// placeholder test every image URL of every work goes through.
@Suite struct FieldLookupTests {
    typealias Keys = PixivIllust.CodingKeys

    /// Each key's field, looked up in `order`, as one object.
    private static func lookUp(_ order: [String]) throws -> [Keys?] {
        let fields = JSONFields<Keys>()
        var cursor = JSONFields<Keys>.Cursor()
        return try order.map { key in
            try Array(key.utf8).withUnsafeBytes { try fields.field(named: $0, &cursor) }
        }
    }

    @Test func findsEveryFieldInAnyOrder() throws {
        let keys = Keys.allCases.map(\.rawValue)
        var generator = SystemRandomNumberGenerator()
        for order in [keys, keys.reversed(), keys.shuffled(using: &generator), keys.shuffled(using: &generator)] {
            #expect(try Self.lookUp(order) == order.map(Keys.init(rawValue:)), "\(order)")
        }
    }

    @Test func keysNoFieldHasAreNone() throws {
        // Pixiv's own fields this client skips, and keys a byte away from known ones.
        let unknown = ["illust_book_style", "restriction_attributes", "i", "ids", "Id", "titl", "title ", "", "total_bookmark", "visiblE"]
        #expect(try Self.lookUp(unknown + ["id"] + unknown + ["title"]) == unknown.map { _ in nil } + [.id] + unknown.map { _ in nil } + [.title])
    }

    @Test func aFieldSentTwiceIsRefusedByName() throws {
        #expect(throws: JSONReadError.self) { try Self.lookUp(["id", "title", "type", "title"]) }
        do {
            _ = try Self.lookUp(["total_view", "total_view"])
            Issue.record("a field sent twice was read")
        } catch let error as JSONReadError {
            #expect("\(error)".contains("total_view"))
        }
    }

    @Test func theReaderAndJSONDecoderAgreeOnAFieldSentTwice() throws {
        // The reader refuses it; the client then hands the body to JSONDecoder, which decides.
        let body = Data(#"{"id": 1, "title": "a", "title": "b"}"#.utf8)
        #expect(throws: JSONReadError.self) { try PixivJSON.read(PixivIllust.self, from: body) }
        let decoded = try? JSONDecoder().decode(PixivIllust.self, from: body)
        #expect((try? PixivJSON.decode(PixivIllust.self, from: body)) == decoded)
    }

    /// The placeholder test against the plain reading of its rule (the file name after the last
    /// `/` of the path, which ends at the first `?` or `#`), for URLs with a query or fragment
    /// at every place, holding slashes and placeholder names of their own.
    @Test func placeholdersAreFoundInThePathOnly() {
        func expected(_ url: String) -> PixivIllust.InvisibleReason? {
            let path = url.prefix { $0 != "?" && $0 != "#" }
            guard let slash = path.lastIndex(of: "/") else { return nil }
            let name = path[path.index(after: slash)...]
            guard name.hasPrefix("limit_") else { return nil }
            let kinds: [(String, PixivIllust.InvisibleReason)] = [
                ("mypixiv", .myPixivOnly), ("sanity_level", .sanityLimited), ("unviewable", .unviewable),
                ("r18", .hiddenByR18Setting), ("r18g", .hiddenByR18GSetting),
            ]
            let rest = name.dropFirst("limit_".count)
            for (word, kind) in kinds where rest.hasPrefix(word) {
                // r18 must not take r18g: the kind ends at '_', '.' or the name's end.
                if [nil, "_", "."].contains(rest.dropFirst(word.count).first) { return kind }
            }
            return .unknown
        }
        let bases = [
            "https://s.pximg.net/common/images/limit_r18_360.png",
            "https://s.pximg.net/common/images/limit_r18g_360.png",
            "https://s.pximg.net/common/images/limit_mypixiv_360.png",
            "https://i.pximg.net/c/360x360_70/img-master/img/2024/01/02/03/04/05/123_p0_square1200.jpg",
        ]
        var checked = 0
        for base in bases {
            for cut in base.indices {
                for mark in ["?", "#"] {
                    for tail in ["", "/limit_r18_360.png", "x=/a/limit_unviewable.png"] {
                        let url = String(base[..<cut]) + mark + tail
                        #expect(PixivIllust.InvisibleReason(placeholderURL: url, userID: 7) == expected(url), "\(url)")
                        checked += 1
                    }
                }
            }
            #expect(PixivIllust.InvisibleReason(placeholderURL: base, userID: 7) == expected(base))
        }
        #expect(checked > 1_000)
    }
}
