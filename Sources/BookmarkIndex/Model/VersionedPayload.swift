import BookmarkJSON
import Foundation

/// Data the index stores for another module without reading it: a version and one JSON value,
/// as the module that wrote it decides (the sync engine's record of a list).
///
/// The JSON is checked when the payload is made, so the journal can keep it as it is, readable
/// with `jq`. Equality compares the bytes.
public struct VersionedPayload: Sendable, Hashable, Codable {
    /// The version of the payload's format, the writer's to interpret.
    public var version: Int
    /// The payload: the UTF-8 text of one JSON value.
    public private(set) var json: Data
    /// Set by the index when it lost rows since the payload was written (a salvage dropped
    /// damaged batches): what the payload says about the rows (a cursor, a position) may no
    /// longer hold, though what it says about the user's own actions still does.
    public var isStale: Bool

    /// A payload of `json`, the UTF-8 text of one JSON value.
    ///
    /// - Throws: ``BookmarkIndexError/Code/invalidArgument`` when `json` is not one JSON value
    ///   (saying at which byte), nests arrays and objects deeper than ``maximumDepth``, is not
    ///   valid UTF-8, or holds a line break (a string's is escaped). Whitespace around the value
    ///   is dropped.
    public init(version: Int, json: Data, isStale: Bool = false) throws {
        let blank: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        let start = json.firstIndex { !blank.contains($0) } ?? json.endIndex
        let end = json.lastIndex { !blank.contains($0) }.map { json.index(after: $0) } ?? start
        let trimmed = Data(json[start..<end])
        try Self.check(trimmed)
        self.version = version
        self.json = trimmed
        self.isStale = isStale
    }

    /// A payload whose JSON the journal's reader has already checked.
    init(version: Int, checkedJSON json: Data, isStale: Bool) {
        self.version = version
        self.json = json
        self.isStale = isStale
    }

    /// How deep a payload's arrays and objects may nest: the journal reads lines nested at most
    /// 128 deep, and a payload is kept a few levels down in its line (batch, change, metadata).
    public static let maximumDepth = JSONReader.maximumDepth - 8

    private static func check(_ json: Data) throws {
        try json.withUnsafeBytes { bytes in
            do {
                var reader = JSONReader(bytes, maximumDepth: maximumDepth)
                reader.skipWhitespace()
                try reader.skipValue()
                reader.skipWhitespace()
                try reader.expectEnd()
            } catch let error as JSONReadError {
                // Invalid UTF-8 is refused here too: the reader checks every string, and outside
                // strings JSON is ASCII.
                throw BookmarkIndexError(.invalidArgument, "A payload must be one JSON value of valid UTF-8: \(error.message) at byte \(error.offset).")
            }
            if bytes.contains(UInt8(ascii: "\n")) || bytes.contains(UInt8(ascii: "\r")) {
                throw BookmarkIndexError(.invalidArgument, "A payload is kept on one journal line: its JSON must hold no line break.")
            }
        }
    }

    private enum CodingKeys: String, CodingKey { case version, json, isStale }

    /// Decodes a payload, checking its JSON as ``init(version:json:isStale:)`` does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let json = Data(try container.decode(String.self, forKey: .json).utf8)
        do {
            try self.init(version: try container.decode(Int.self, forKey: .version), json: json,
                          isStale: try container.decodeIfPresent(Bool.self, forKey: .isStale) ?? false)
        } catch let error as BookmarkIndexError {
            throw DecodingError.dataCorruptedError(forKey: .json, in: container, debugDescription: error.message)
        }
    }

    /// Encodes the payload, its JSON as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(String(decoding: json, as: UTF8.self), forKey: .json)
        if isStale { try container.encode(true, forKey: .isStale) }
    }
}
