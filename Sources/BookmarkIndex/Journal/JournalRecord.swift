/// How one kind of journal record, a JSON object, is written and read: its members, each
/// described once, by its key, how its value is written and how it is read back.
///
/// The encoder and the decoder of a record are both this one description, so a field added to
/// the journal is one member added here (see `JournalRecords`). Members are written in the
/// order they are listed; they are read in any order (the listed order is tried first, so a
/// line the journal wrote costs one key comparison a member). Keys no member has are skipped,
/// and a required member that is missing is an error naming the record and the key.
struct JournalRecord<Value: Sendable>: Sendable {
    /// One member of the record.
    struct Member: Sendable {
        let key: StaticString
        /// `"key":` as written.
        let written: [UInt8]
        let isRequired: Bool
        /// Whether `value` has this member at all (members left out when empty or `nil`).
        let isWritten: @Sendable (Value) -> Bool
        let write: @Sendable (Value, inout JSONWriter) -> Void
        let read: @Sendable (inout JSONReader, inout Value) throws -> Void
    }

    /// What the record is called in an error, for example "the upsert change".
    let name: String
    /// What decoding starts from: every member not read keeps this value's.
    let empty: Value
    let members: [Member]
    private let requiredMask: UInt64

    init(_ name: String, empty: Value, _ members: [Member]) {
        precondition(members.count <= 64, "a record's members are tracked in one UInt64")
        self.name = name
        self.empty = empty
        self.members = members
        requiredMask = members.indices.reduce(0) { mask, index in members[index].isRequired ? mask | 1 << index : mask }
    }

    // MARK: Writing

    /// Writes the record as a JSON object.
    func encode(_ value: Value, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        encodeMembers(of: value, to: &writer, afterOthers: false)
        writer.byte(UInt8(ascii: "}"))
    }

    /// Writes the record's members, without the braces: after members already written
    /// (`afterOthers`: each preceded by a comma) or as the object's first.
    func encodeMembers(of value: Value, to writer: inout JSONWriter, afterOthers: Bool) {
        var needsComma = afterOthers
        for member in members where member.isWritten(value) {
            if needsComma { writer.byte(UInt8(ascii: ",")) }
            needsComma = true
            writer.bytes.append(contentsOf: member.written)
            member.write(value, &writer)
        }
    }

    // MARK: Reading

    /// Reads the object at `reader` as this record.
    func decode(_ reader: inout JSONReader) throws -> Value {
        let start = reader.position
        var value = empty
        var seen: UInt64 = 0
        var next = 0
        try reader.readObject { reader, key in
            guard let index = index(of: key, from: next) else {
                try reader.skipValue()
                return
            }
            try members[index].read(&reader, &value)
            seen |= 1 << index
            next = index + 1
        }
        if seen & requiredMask != requiredMask, let missing = members.indices.first(where: { requiredMask & ~seen & 1 << $0 != 0 }) {
            throw reader.error("\(name) has no '\(members[missing].key)'", at: start)
        }
        return value
    }

    /// Whether the record has a member called `key`.
    func hasMember(_ key: UnsafeRawBufferPointer) -> Bool {
        index(of: key, from: 0) != nil
    }

    /// The member called `key`, trying `expected` (the one after the last read) first.
    private func index(of key: UnsafeRawBufferPointer, from expected: Int) -> Int? {
        if expected < members.count && key.equals(members[expected].key) { return expected }
        return members.indices.first { key.equals(members[$0].key) }
    }
}

extension JournalRecord.Member {
    /// A member every record has, written always.
    ///
    /// - Parameters:
    ///   - required: whether reading a record without it is an error (else it keeps the
    ///     record's empty value).
    ///   - omittedWhen: leaves the member out of records whose value passes this test.
    init<Field>(
        _ key: StaticString,
        _ coding: JournalCoding<Field>,
        required: Bool = false,
        omittedWhen omitted: (@Sendable (Field) -> Bool)? = nil,
        get: @escaping @Sendable (Value) -> Field,
        set: @escaping @Sendable (inout Value, Field) -> Void
    ) {
        self.key = key
        written = Self.written(key)
        isRequired = required
        if let omitted {
            isWritten = { !omitted(get($0)) }
        } else {
            isWritten = { _ in true }
        }
        write = { value, writer in coding.write(get(value), &writer) }
        read = { reader, value in set(&value, try coding.read(&reader)) }
    }

    /// A member that is left out when `get` gives `nil`, and reads as `nil` when absent.
    static func optional<Wrapped>(
        _ key: StaticString,
        _ coding: JournalCoding<Wrapped>,
        get: @escaping @Sendable (Value) -> Wrapped?,
        set: @escaping @Sendable (inout Value, Wrapped?) -> Void
    ) -> Self {
        Self(
            key: key, written: written(key), isRequired: false, isWritten: { get($0) != nil },
            write: { value, writer in coding.write(get(value)!, &writer) },
            read: { reader, value in set(&value, try coding.read(&reader)) }
        )
    }

    /// A member whose value is always the string `value`, such as a change's `op`: what a
    /// reader looks at to choose the record; reading the record checks it.
    static func constant(_ key: StaticString, _ value: StaticString) -> Self {
        var quoted = JSONWriter()
        quoted.string(value.description)
        return Self(
            key: key, written: written(key), isRequired: false, isWritten: { _ in true },
            write: { [bytes = quoted.bytes] _, writer in writer.bytes.append(contentsOf: bytes) },
            read: { reader, _ in
                let start = reader.position
                let found = try reader.readString()
                guard found == value.description else {
                    throw reader.error("the record's '\(key)' is '\(found)', not '\(value)'", at: start)
                }
            }
        )
    }

    private static func written(_ key: StaticString) -> [UInt8] {
        var writer = JSONWriter()
        writer.byte(UInt8(ascii: "\""))
        writer.raw(key)
        writer.raw("\":")
        return writer.bytes
    }
}

/// How one kind of value is written as JSON and read back.
struct JournalCoding<Field: Sendable>: Sendable {
    let write: @Sendable (Field, inout JSONWriter) -> Void
    let read: @Sendable (inout JSONReader) throws -> Field

    /// `null` for `nil`, else the value as `coding` writes it.
    static func nullable<Wrapped>(_ coding: JournalCoding<Wrapped>) -> JournalCoding<Wrapped?> where Field == Wrapped? {
        JournalCoding<Wrapped?>(
            write: { value, writer in
                if let value { coding.write(value, &writer) } else { writer.raw("null") }
            },
            read: { reader in try reader.readNullIfPresent() ? nil : try coding.read(&reader) }
        )
    }

    /// A nested record, as an object.
    static func record(_ record: JournalRecord<Field>) -> JournalCoding<Field> {
        JournalCoding(write: { record.encode($0, to: &$1) }, read: { try record.decode(&$0) })
    }

    /// An array of values.
    static func array<Element>(_ coding: JournalCoding<Element>) -> JournalCoding<[Element]> where Field == [Element] {
        JournalCoding<[Element]>(
            write: { elements, writer in
                writer.byte(UInt8(ascii: "["))
                for (index, element) in elements.enumerated() {
                    if index > 0 { writer.byte(UInt8(ascii: ",")) }
                    coding.write(element, &writer)
                }
                writer.byte(UInt8(ascii: "]"))
            },
            read: { reader in
                var elements: [Element] = []
                try reader.readArray { elements.append(try coding.read(&$0)) }
                return elements
            }
        )
    }
}

extension JournalCoding where Field == Int {
    static var int: Self { Self(write: { $1.int($0) }, read: { try $0.readInt() }) }
}

extension JournalCoding where Field == Int64 {
    static var int64: Self { Self(write: { $1.int($0) }, read: { Int64(try $0.readInt()) }) }
}

extension JournalCoding where Field == Bool {
    static var bool: Self { Self(write: { $1.bool($0) }, read: { try $0.readBool() }) }
}

extension JournalCoding where Field == String {
    static var string: Self { Self(write: { $1.string($0) }, read: { try $0.readString() }) }
    /// A string that comes back on line after line (tags, artist names): read through the
    /// reader's string cache.
    static var cachedString: Self { Self(write: { $1.string($0) }, read: { try $0.readCachedString() }) }
}
