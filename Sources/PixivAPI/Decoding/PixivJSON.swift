import BookmarkJSON
import Foundation

/// A wire model the client reads with the package's own JSON reader instead of `JSONDecoder`.
///
/// The model's `Decodable` conformance stays the reference: a reader gives exactly the value
/// `JSONDecoder` would, or throws. It throws on anything it cannot read that way, not only on
/// what `JSONDecoder` refuses (a key sent twice, a fraction where an integer belongs, a body that
/// is not a bare UTF-8 object), and ``PixivJSON/decode(_:from:)`` then hands the body to
/// `JSONDecoder`, which decides.
protocol PixivJSONReadable: Decodable {
    /// Reads the value at `reader`, which is at the value's first byte or the whitespace before it.
    init(json reader: inout JSONReader) throws
}

/// Decoding of Pixiv's answers: the purpose-built reader first, `JSONDecoder` for what it refuses.
enum PixivJSON {
    /// The value `body` holds, as `JSONDecoder().decode(type, from: body)` gives it.
    ///
    /// - Throws: what `JSONDecoder` throws for the body.
    static func decode<Value: PixivJSONReadable>(_ type: Value.Type, from body: Data) throws -> Value {
        if let value = try? read(type, from: body) { return value }
        return try JSONDecoder().decode(type, from: body)
    }

    /// The value `body` holds, read by the purpose-built reader alone.
    ///
    /// - Throws: `JSONReadError` for anything the reader does not read exactly as `JSONDecoder`.
    static func read<Value: PixivJSONReadable>(_ type: Value.Type, from body: Data) throws -> Value {
        try body.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            let value = try Value(json: &reader)
            try reader.expectEnd()
            return value
        }
    }
}

extension JSONReader {
    /// `decodeIfPresent`: `nil` for a `null`, else the value `read` reads.
    mutating func readIfPresent<Value>(_ read: (inout JSONReader) throws -> Value) throws -> Value? {
        try readNullIfPresent() ? nil : read(&self)
    }

    /// `decodeIfPresent(Int.self, …)`.
    mutating func readOptionalInt() throws -> Int? {
        try readNullIfPresent() ? nil : readInt()
    }

    /// `decodeIfPresent(Bool.self, …)`.
    mutating func readOptionalBool() throws -> Bool? {
        try readNullIfPresent() ? nil : readBool()
    }

    /// An array each of whose elements `read` reads (a `null` element is no element: refused).
    ///
    /// With `capacity`, room for that many elements is made with the first one: an array of a
    /// known usual size (a work's tags, a page's works) then takes one allocation, not one for
    /// each doubling of a growing array.
    mutating func readArray<Element>(of read: (inout JSONReader) throws -> Element, reservingCapacity capacity: Int = 0) throws -> [Element] {
        var elements: [Element] = []
        try readArray { reader in
            if elements.isEmpty { elements.reserveCapacity(capacity) }
            elements.append(try read(&reader))
        }
        return elements
    }

    /// A field whose value must be there and not `null`, as `decode(_:forKey:)` wants it.
    func required<Value>(_ value: Value?, _ name: String) throws -> Value {
        guard let value else { throw error("the field \(name) is missing") }
        return value
    }
}
