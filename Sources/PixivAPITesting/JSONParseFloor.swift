import BookmarkJSON
import Foundation

/// What reading a body of JSON costs before any value is made: the package's JSON reader
/// walking every value and checking it is well formed (strings' UTF-8 included), keeping
/// nothing. The benchmarks time it beside the client's decoding of the same bodies, as the
/// floor that decoding is measured against. Not for tests or apps: behind
/// `@_spi(Benchmarks)`.
@_spi(Benchmarks) public enum JSONParseFloor {
    /// Walks `body`'s one JSON value to its end.
    ///
    /// - Throws: an error saying where, when `body` is not one well-formed JSON value.
    public static func walk(_ body: Data) throws {
        try body.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            try reader.skipValue()
            try reader.expectEnd()
        }
    }
}
