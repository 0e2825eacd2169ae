import BookmarkJSON
import Foundation

/// A JSON value the tool prints (`list --json`, `export`, `status --json`, …), written with the
/// journal's own writer.
///
/// `JSONSerialization` took 80 % of `list --json` (3,600 bookmarks, 2.3 s in a debug build): it
/// sorts each object's keys through `NSString` comparisons and casts every value dynamically. A
/// value built from these cases writes in one pass: each object's keys in Swift's string order
/// (for the tool's ASCII keys, the order of their bytes), slashes unescaped, text as UTF-8.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(_ value: String?) { self = value.map(JSONValue.string) ?? .null }
    init(_ value: Int?) { self = value.map(JSONValue.int) ?? .null }
    /// A date as ISO 8601 in UTC, or `null`.
    init(_ value: Date?) { self = value.map { .string(isoDate($0)) } ?? .null }

    /// The value as text: indented two spaces a level with `"key" : value` (as
    /// `JSONSerialization`'s `.prettyPrinted` wrote it), or on one line.
    func text(pretty: Bool) -> String {
        var writer = JSONWriter(capacity: 4_096)
        write(into: &writer, indent: pretty ? 0 : nil)
        return writer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    private func write(into writer: inout JSONWriter, indent: Int?) {
        switch self {
        case .null: writer.raw("null")
        case .bool(let value): writer.bool(value)
        case .int(let value): writer.int(value)
        case .double(let value):
            // JSON has no infinities or NaNs.
            if value.isFinite { writer.double(value) } else { writer.raw("null") }
        case .string(let value): writer.string(value)
        case .array(let elements):
            writer.byte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                Self.newline(into: &writer, indent: indent.map { $0 + 1 })
                element.write(into: &writer, indent: indent.map { $0 + 1 })
            }
            if !elements.isEmpty { Self.newline(into: &writer, indent: indent) }
            writer.byte(UInt8(ascii: "]"))
        case .object(let members):
            writer.byte(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                Self.newline(into: &writer, indent: indent.map { $0 + 1 })
                writer.string(key)
                writer.raw(indent == nil ? ":" : " : ")
                members[key]!.write(into: &writer, indent: indent.map { $0 + 1 })
            }
            if !members.isEmpty { Self.newline(into: &writer, indent: indent) }
            writer.byte(UInt8(ascii: "}"))
        }
    }

    private static func newline(into writer: inout JSONWriter, indent: Int?) {
        guard let indent else { return }
        writer.byte(UInt8(ascii: "\n"))
        for _ in 0..<indent { writer.raw("  ") }
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
    }
}

/// Prints `value` indented, as `list --json` and the other `--json` commands do.
func printJSON(_ value: JSONValue) {
    print(value.text(pretty: true))
}
