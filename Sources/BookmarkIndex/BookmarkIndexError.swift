/// An error from the index or its storage: a ``code`` to branch on, a message that says what
/// failed and what to do, and the underlying error, if any.
///
/// `Code` is a struct so that new codes can be added without breaking a `switch`.
public struct BookmarkIndexError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The store or its storage was closed.
        public static let closed = Code("closed")
        /// A write to a storage opened only to read (a ``JournalReader``).
        public static let readOnly = Code("readOnly")
        /// An argument was out of range or malformed.
        public static let invalidArgument = Code("invalidArgument")
        /// Reading or writing the storage failed.
        public static let io = Code("io")
        /// Another store, in this process or another, has the directory open.
        public static let locked = Code("locked")
        /// The journal is damaged somewhere other than its last line; the message names the
        /// line and byte offset. Open with salvage to keep every valid batch.
        public static let corrupt = Code("corrupt")
        /// The journal was written by a newer version of this library; it was left untouched.
        public static let newerSchema = Code("newerSchema")
        /// A schema migration step failed; the journal was left as it was. The caller may
        /// delete it with ``JournalStorage/removeJournal(in:pool:)`` and sync again.
        public static let migrationFailed = Code("migrationFailed")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed, on which input, and what the caller can do.
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying {
            return "\(code): \(message) (\(underlying))"
        }
        return "\(code): \(message)"
    }
}
