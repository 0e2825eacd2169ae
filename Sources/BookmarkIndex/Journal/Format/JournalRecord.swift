import BookmarkJSON
/// One kind of journal record, a JSON object, described once for writing and reading alike.
///
/// A record's ``describe(_:)`` lists its members in the order they are written, each with its
/// key, how its value is written and read (a ``JournalValueCoding``), and how it is got from and
/// set on the record's value. Writing and reading both run that one function, with a visitor
/// that writes each member or reads the one a key names, so a field added to the journal is one
/// member added to one description (see `JournalRecords`). The visitors are generic, so the
/// compiler specializes each description for each of them: writing a record is straight-line
/// code, with no closures stored or called.
///
/// Members are read in any order (the member after the last one read is tried first, so a line
/// the journal wrote costs one key comparison a member). Keys no member has are skipped, and a
/// required member that is missing is an error naming the record and the key. Which members
/// were read is kept in a `UInt64`: a record has at most 64.
protocol JournalRecord {
    associatedtype Value
    /// What the record is called in an error, for example "the upsert change".
    static var name: String { get }
    /// What reading starts from: every member not read keeps this value's.
    static var empty: Value { get }
    /// Visits every member, in the order they are written.
    static func describe<Visitor: JournalRecordVisitor<Value>>(_ visitor: inout Visitor) throws
}

/// What a record's description is run with: one call per member.
protocol JournalRecordVisitor<Record> {
    associatedtype Record
    /// A member written always (unless `omitted` says its value is left out); `required`
    /// makes reading a record without it an error, else it keeps the empty record's value.
    mutating func member<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding, required: Bool, omittedWhen omitted: (Coding.Value) -> Bool,
        get: (Record) -> Coding.Value, set: (inout Record, Coding.Value) -> Void
    ) throws
    /// A member left out when `get` gives `nil`, and read as `nil` when absent.
    mutating func optional<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding,
        get: (Record) -> Coding.Value?, set: (inout Record, Coding.Value?) -> Void
    ) throws
    /// A member whose value is always the string `value`, such as a change's `op`: what a
    /// reader looks at to choose the record; reading the record checks it.
    mutating func constant(_ key: StaticString, _ value: StaticString) throws
}

extension JournalRecordVisitor {
    /// A member written always.
    mutating func member<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding, required: Bool = false,
        get: (Record) -> Coding.Value, set: (inout Record, Coding.Value) -> Void
    ) throws {
        try member(key, coding, required: required, omittedWhen: { _ in false }, get: get, set: set)
    }
}

// MARK: Writing

extension JournalRecord {
    /// Writes `value` as a JSON object.
    static func encode(_ value: Value, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        encodeMembers(of: value, to: &writer, afterOthers: false)
        writer.byte(UInt8(ascii: "}"))
    }

    /// Writes the members of `value`, without the braces: after members already written
    /// (`afterOthers`: each preceded by a comma) or as the object's first.
    static func encodeMembers(of value: Value, to writer: inout JSONWriter, afterOthers: Bool) {
        var visitor = JournalEncodingVisitor<Value>(value: value, needsComma: afterOthers)
        swap(&visitor.writer, &writer)
        // Writing throws nothing: only reading does.
        try? describe(&visitor)
        swap(&visitor.writer, &writer)
    }
}

/// Writes each member of its value.
struct JournalEncodingVisitor<Record>: JournalRecordVisitor {
    let value: Record
    var needsComma: Bool
    var writer = JSONWriter()

    mutating func member<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding, required: Bool, omittedWhen omitted: (Coding.Value) -> Bool,
        get: (Record) -> Coding.Value, set: (inout Record, Coding.Value) -> Void
    ) {
        let field = get(value)
        if omitted(field) { return }
        writeKey(key)
        coding.write(field, to: &writer)
    }

    mutating func optional<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding,
        get: (Record) -> Coding.Value?, set: (inout Record, Coding.Value?) -> Void
    ) {
        guard let field = get(value) else { return }
        writeKey(key)
        coding.write(field, to: &writer)
    }

    mutating func constant(_ key: StaticString, _ value: StaticString) {
        writeKey(key)
        writer.byte(UInt8(ascii: "\""))
        writer.raw(value)
        writer.byte(UInt8(ascii: "\""))
    }

    /// `"key":`, after a comma unless it is the object's first. Keys are plain ASCII.
    @inline(__always)
    private mutating func writeKey(_ key: StaticString) {
        writer.key(key, afterComma: needsComma)
        needsComma = true
    }
}

// MARK: Reading

extension JournalRecord {
    /// Reads the object at `reader` as this record.
    static func decode(_ reader: inout JSONReader) throws -> Value {
        let start = reader.position
        var visitor = JournalDecodingVisitor<Value>(value: empty)
        var seen: UInt64 = 0
        var next = 0
        try reader.readObject { reader, key in
            visitor.key = key
            swap(&visitor.reader, &reader)
            defer { swap(&visitor.reader, &reader) }
            // The member after the last one read first, as the journal writes them; then any.
            visitor.wanted = next
            visitor.index = 0
            try describe(&visitor)
            if visitor.matched == nil {
                visitor.wanted = nil
                visitor.index = 0
                try describe(&visitor)
            }
            guard let index = visitor.matched else {
                try visitor.reader.skipValue()
                return
            }
            visitor.matched = nil
            seen |= 1 << index
            next = index + 1
        }
        var check = JournalRequiredMembers<Value>(seen: seen)
        try describe(&check)
        if let missing = check.missing {
            throw reader.error("\(name) has no '\(missing)'", at: start)
        }
        return visitor.value
    }

    /// Whether the record has a member called `key`.
    static func hasMember(_ key: UnsafeRawBufferPointer) -> Bool {
        var visitor = JournalMemberLookup<Value>(key: key)
        try? describe(&visitor)
        return visitor.found
    }
}

/// Reads the value of the member a key names, if the record has it.
struct JournalDecodingVisitor<Record>: JournalRecordVisitor {
    var value: Record
    var reader = JSONReader(UnsafeRawBufferPointer(start: nil, count: 0))
    var key = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Only the member at this index is compared with the key; `nil`: every member.
    var wanted: Int?
    /// The index of the member that was read.
    var matched: Int?
    /// The index of the member visited next: set to 0 before each pass over the description.
    var index = 0

    init(value: Record) {
        self.value = value
    }

    /// Whether the member with `key`, visited now, is the one to read; counts it.
    private mutating func isNamed(_ key: StaticString) -> Bool {
        defer { index += 1 }
        guard matched == nil, wanted.map({ $0 == index }) ?? true, self.key.equals(key) else { return false }
        matched = index
        return true
    }

    mutating func member<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding, required: Bool, omittedWhen omitted: (Coding.Value) -> Bool,
        get: (Record) -> Coding.Value, set: (inout Record, Coding.Value) -> Void
    ) throws {
        if isNamed(key) { set(&value, try coding.read(&reader)) }
    }

    mutating func optional<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding,
        get: (Record) -> Coding.Value?, set: (inout Record, Coding.Value?) -> Void
    ) throws {
        if isNamed(key) { set(&value, try coding.read(&reader)) }
    }

    mutating func constant(_ key: StaticString, _ value: StaticString) throws {
        guard isNamed(key) else { return }
        let start = reader.position
        let found = try reader.readString()
        guard found == value.description else {
            throw reader.error("the record's '\(key)' is '\(found)', not '\(value)'", at: start)
        }
    }
}

/// Finds the first required member that was not read.
struct JournalRequiredMembers<Record>: JournalRecordVisitor {
    let seen: UInt64
    var missing: StaticString?
    private var index = 0

    init(seen: UInt64) {
        self.seen = seen
    }

    private mutating func check(_ key: StaticString, required: Bool) {
        if required && missing == nil && seen & 1 << index == 0 { missing = key }
        index += 1
    }

    mutating func member<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding, required: Bool, omittedWhen omitted: (Coding.Value) -> Bool,
        get: (Record) -> Coding.Value, set: (inout Record, Coding.Value) -> Void
    ) {
        check(key, required: required)
    }

    mutating func optional<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding,
        get: (Record) -> Coding.Value?, set: (inout Record, Coding.Value?) -> Void
    ) {
        check(key, required: false)
    }

    mutating func constant(_ key: StaticString, _ value: StaticString) {
        check(key, required: false)
    }
}

/// Whether a record has a member with a key.
struct JournalMemberLookup<Record>: JournalRecordVisitor {
    let key: UnsafeRawBufferPointer
    var found = false

    init(key: UnsafeRawBufferPointer) {
        self.key = key
    }

    mutating func member<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding, required: Bool, omittedWhen omitted: (Coding.Value) -> Bool,
        get: (Record) -> Coding.Value, set: (inout Record, Coding.Value) -> Void
    ) {
        if self.key.equals(key) { found = true }
    }

    mutating func optional<Coding: JournalValueCoding>(
        _ key: StaticString, _ coding: Coding,
        get: (Record) -> Coding.Value?, set: (inout Record, Coding.Value?) -> Void
    ) {
        if self.key.equals(key) { found = true }
    }

    mutating func constant(_ key: StaticString, _ value: StaticString) {
        if self.key.equals(key) { found = true }
    }
}

// MARK: Values

/// How one kind of value is written as JSON and read back.
protocol JournalValueCoding {
    associatedtype Value
    func write(_ value: Value, to writer: inout JSONWriter)
    func read(_ reader: inout JSONReader) throws -> Value
}

struct JournalIntCoding: JournalValueCoding {
    func write(_ value: Int, to writer: inout JSONWriter) { writer.int(value) }
    func read(_ reader: inout JSONReader) throws -> Int { try reader.readInt() }
}

struct JournalInt64Coding: JournalValueCoding {
    func write(_ value: Int64, to writer: inout JSONWriter) { writer.int(value) }
    func read(_ reader: inout JSONReader) throws -> Int64 { Int64(try reader.readInt()) }
}

struct JournalBoolCoding: JournalValueCoding {
    func write(_ value: Bool, to writer: inout JSONWriter) { writer.bool(value) }
    func read(_ reader: inout JSONReader) throws -> Bool { try reader.readBool() }
}

struct JournalStringCoding: JournalValueCoding {
    /// Whether strings are read through the reader's string cache: for those that come back on
    /// line after line (tags, artist names).
    var isCached = false
    func write(_ value: String, to writer: inout JSONWriter) { writer.string(value) }
    func read(_ reader: inout JSONReader) throws -> String { isCached ? try reader.readCachedString() : try reader.readString() }
}

/// `null` for `nil`, else the value as `wrapped` writes it.
struct JournalNullableCoding<Wrapped: JournalValueCoding>: JournalValueCoding {
    var wrapped: Wrapped
    func write(_ value: Wrapped.Value?, to writer: inout JSONWriter) {
        if let value { wrapped.write(value, to: &writer) } else { writer.raw("null") }
    }
    func read(_ reader: inout JSONReader) throws -> Wrapped.Value? {
        try reader.readNullIfPresent() ? nil : try wrapped.read(&reader)
    }
}

/// An array of values.
struct JournalArrayCoding<Element: JournalValueCoding>: JournalValueCoding {
    var element: Element
    func write(_ value: [Element.Value], to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        for index in value.indices {
            if index > value.startIndex { writer.byte(UInt8(ascii: ",")) }
            element.write(value[index], to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
    }
    func read(_ reader: inout JSONReader) throws -> [Element.Value] {
        var values: [Element.Value] = []
        try reader.readArray { values.append(try element.read(&$0)) }
        return values
    }
}

/// A nested record, as an object.
struct JournalRecordCoding<Record: JournalRecord>: JournalValueCoding {
    func write(_ value: Record.Value, to writer: inout JSONWriter) { Record.encode(value, to: &writer) }
    func read(_ reader: inout JSONReader) throws -> Record.Value { try Record.decode(&reader) }
}

extension JournalValueCoding where Self == JournalIntCoding {
    static var int: Self { Self() }
}

extension JournalValueCoding where Self == JournalInt64Coding {
    static var int64: Self { Self() }
}

extension JournalValueCoding where Self == JournalBoolCoding {
    static var bool: Self { Self() }
}

extension JournalValueCoding where Self == JournalStringCoding {
    static var string: Self { Self() }
    /// A string read through the reader's string cache.
    static var cachedString: Self { Self(isCached: true) }
}

extension JournalValueCoding {
    /// `null` for `nil`, else the value as `wrapped` writes it.
    static func nullable<Wrapped>(_ wrapped: Wrapped) -> Self where Self == JournalNullableCoding<Wrapped> {
        Self(wrapped: wrapped)
    }

    /// An array of values as `element` writes them.
    static func array<Element>(_ element: Element) -> Self where Self == JournalArrayCoding<Element> {
        Self(element: element)
    }

    /// A nested record.
    static func record<Record>(_: Record.Type) -> Self where Self == JournalRecordCoding<Record> {
        Self()
    }
}
