import BookmarkJSON
import Foundation

/// The fields a reader knows in one kind of Pixiv object: an enumeration whose raw values are
/// the JSON keys (a model's `CodingKeys`, so that both decoders read the same keys), listed in
/// the order Pixiv writes them.
///
/// Pixiv writes an object's keys in the same order every time, so a lookup tries the field
/// after the one found last before any other: a known key costs one comparison, not one for
/// every field listed before it (an illust has 25). Read objects with
/// ``BookmarkJSON/JSONReader/readObject(_:_:)``.
struct JSONFields<Field: CaseIterable & RawRepresentable<String> & Sendable>: Sendable {
    private let fields: [Field]
    /// Every field's key, one after another.
    private let keys: [UInt8]
    /// Where each field's key starts in ``keys``, and (last) where the last one ends.
    private let starts: [Int]

    init() {
        fields = Array(Field.allCases)
        precondition(fields.count <= 64, "a reader's fields are marked seen in 64 bits")
        var keys: [UInt8] = [], starts = [0]
        for field in fields {
            keys += field.rawValue.utf8
            starts.append(keys.count)
        }
        self.keys = keys
        self.starts = starts
    }

    /// One object's reading: the fields it has shown, and which to try first.
    fileprivate struct Cursor {
        var next = 0
        var seen: UInt64 = 0
    }

    /// The field `key` names, and whether the object showed it before; `nil` for a key the
    /// reader skips.
    fileprivate func field(named key: UnsafeRawBufferPointer, _ cursor: inout Cursor) -> (field: Field, sentBefore: Bool)? {
        var index = cursor.next
        for _ in 0..<fields.count {
            if index == fields.count { index = 0 }
            if names(index, key) {
                let bit: UInt64 = 1 << UInt64(index)
                defer { cursor.seen |= bit }
                cursor.next = index + 1
                return (fields[index], cursor.seen & bit != 0)
            }
            index += 1
        }
        return nil
    }

    /// Whether field `index`'s key is `key`.
    private func names(_ index: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        keys.withUnsafeBytes { keys in bytesEqual(UnsafeRawBufferPointer(rebasing: keys[starts[index]..<starts[index + 1]]), key) }
    }
}

extension JSONReader {
    /// Reads an object, calling `field` with the reader at the value of each key `fields`
    /// knows, and skipping the values of the others.
    ///
    /// - Throws: `JSONReadError` for a key the object sends twice (which of the two
    ///   `JSONDecoder` keeps is its own business), or what `field` throws.
    mutating func readObject<Field>(_ fields: JSONFields<Field>, _ field: (inout JSONReader, Field) throws -> Void) throws {
        var cursor = JSONFields<Field>.Cursor()
        try readObject { reader, key in
            guard let (known, sentBefore) = fields.field(named: key, &cursor) else { return try reader.skipValue() }
            guard !sentBefore else { throw reader.error("the field \(known.rawValue) is sent twice") }
            try field(&reader, known)
        }
    }
}
