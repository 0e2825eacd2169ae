import BookmarkIndexTesting
import BookmarkJSON
import Foundation
import Testing
@testable import PixivAPI

/// The readers' field lookup, which tries the field after the last one found first.
@Suite struct FieldLookupTests {
    typealias Keys = PixivIllust.CodingKeys

    /// The fields `JSONReader.readObject(_:_:)` calls back with for an object of `keys` in
    /// that order (each key's value its position), each with the value it was at.
    private static func read(_ keys: [String]) throws -> [(field: Keys, value: Int)] {
        let members = keys.enumerated().map { "\"\($0.element)\": \($0.offset)" }
        let json = Array(("{" + members.joined(separator: ", ") + "}").utf8)
        var found: [(field: Keys, value: Int)] = []
        try json.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            try reader.readObject(JSONFields<Keys>()) { reader, field in found.append((field, try reader.readInt())) }
            try reader.expectEnd()
        }
        return found
    }

    @Test func findsEveryFieldInAnyOrder() throws {
        let keys = Keys.allCases.map(\.rawValue)
        var random = SeededRandom(seed: 4)
        for order in [keys, keys.reversed(), keys.shuffled(using: &random), keys.shuffled(using: &random)] {
            let found = try Self.read(order)
            #expect(found.map(\.field) == order.map { Keys(rawValue: $0)! }, "\(order)")
            #expect(found.map(\.value) == Array(order.indices), "each field is called at its own value")
        }
    }

    @Test func keysNoFieldHasAreSkipped() throws {
        // Pixiv's own fields this client skips, and keys a byte away from known ones.
        let unknown = ["illust_book_style", "restriction_attributes", "i", "ids", "Id", "titl", "title ", "", "total_bookmark", "visiblE"]
        let found = try Self.read(unknown + ["id"] + unknown + ["title"])
        #expect(found.map(\.field) == [.id, .title])
        #expect(found.map(\.value) == [unknown.count, 2 * unknown.count + 1])
    }

    @Test func aFieldSentTwiceIsRefusedByName() throws {
        #expect(throws: JSONReadError.self) { try Self.read(["id", "title", "type", "title"]) }
        do {
            _ = try Self.read(["total_view", "total_view"])
            Issue.record("a field sent twice was read")
        } catch let error as JSONReadError {
            #expect(error.message.contains("total_view"))
        }
        // The whole reader refuses such a body (the client then hands it to JSONDecoder).
        #expect(throws: JSONReadError.self) { try PixivJSON.read(PixivIllust.self, from: Data(#"{"id": 1, "title": "a", "title": "b"}"#.utf8)) }
    }
}
