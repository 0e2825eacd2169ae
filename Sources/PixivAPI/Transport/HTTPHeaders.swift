/// An ordered list of HTTP header fields whose lookup ignores the case of the name.
///
/// A value type: copy and share it freely. Lookup is O(n) in the number of fields, which for
/// HTTP is a handful.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were added, names spelled as given.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from `(name, value)` pairs, in order.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Creates headers from a literal such as `["Accept": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The value of the first field named `name` (any case); setting replaces every field of
    /// that name, and `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveEquals(name) }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Iterates the fields in order.
    public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
        fields.makeIterator()
    }

    /// Equal when the same fields appear in the same order, names compared ignoring case.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name.lowercased() == $1.name.lowercased() && $0.value == $1.value }
    }

    /// Hashes consistently with `==` (names lowercased).
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
