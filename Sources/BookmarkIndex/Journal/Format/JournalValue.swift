import BookmarkJSON
/// A JSON value: how a migration step sees a journal record of an older schema.
///
/// Numbers keep their text, so no integer loses precision on the way through.
package enum JournalValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JournalValue])
    case object([String: JournalValue])

    /// The member `key` of an object; `nil` for a missing member or a value that is not an object.
    package subscript(key: String) -> JournalValue? {
        get {
            if case .object(let members) = self { return members[key] }
            return nil
        }
        set {
            guard case .object(var members) = self else { return }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The string, if this is one.
    package var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The integer, if this is a number without a fraction.
    package var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    /// The elements, if this is an array.
    package var arrayValue: [JournalValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// An integer value.
    package static func int(_ value: Int) -> JournalValue { .number(String(value)) }

    static func read(_ reader: inout JSONReader) throws -> JournalValue {
        switch reader.peek() {
        case UInt8(ascii: "{"):
            var members: [String: JournalValue] = [:]
            try reader.readObject { reader, key in
                members[String(decoding: key, as: UTF8.self)] = try read(&reader)
            }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [JournalValue] = []
            try reader.readArray { elements.append(try read(&$0)) }
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try reader.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try reader.readBool())
        case UInt8(ascii: "n"):
            try reader.readNull()
            return .null
        default:
            return .number(try reader.readNumberText())
        }
    }

    func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.raw("null")
        case .bool(let value): writer.bool(value)
        case .number(let text): writer.raw(text.utf8)
        case .string(let string): writer.string(string)
        case .array(let elements):
            writer.byte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                element.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "]"))
        case .object(let members):
            writer.byte(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.string(key)
                writer.byte(UInt8(ascii: ":"))
                members[key]!.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }
}
