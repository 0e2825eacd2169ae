/// What a storage found when it read back what it holds: ``BookmarkStorage/health()``'s answer,
/// and what `bookmarks verify` prints.
public struct StorageHealth: Sendable, Hashable {
    /// What the storage is and where, in a few words ("journal /path/journal.jsonl").
    public var storage: String
    /// The public bookmarks stored.
    public var publicBookmarks: Int
    /// The private bookmarks stored.
    public var privateBookmarks: Int
    /// The bytes the storage takes, when it can tell.
    public var bytes: Int?
    /// What is wrong, each saying where and what the next open will do about it. Empty when
    /// everything reads back.
    public var problems: [String]
    /// The journal's own report, for a ``JournalStorage``.
    public var journal: JournalHealthReport?

    /// Creates a report.
    public init(
        storage: String,
        publicBookmarks: Int,
        privateBookmarks: Int,
        bytes: Int? = nil,
        problems: [String] = [],
        journal: JournalHealthReport? = nil
    ) {
        self.storage = storage
        self.publicBookmarks = publicBookmarks
        self.privateBookmarks = privateBookmarks
        self.bytes = bytes
        self.problems = problems
        self.journal = journal
    }

    /// Whether everything stored reads back.
    public var isHealthy: Bool { problems.isEmpty }
}

extension StorageHealth {
    /// The report of a journal.
    init(_ report: JournalHealthReport) {
        var problems = report.damage.map { "\(report.path): \($0)" }
        if let tail = report.tornTail {
            problems.append("\(report.path): \(tail) — a write cut short by a crash; the next open cuts it off")
        }
        if report.schemaVersion == nil, report.damage.isEmpty {
            problems.append("\(report.path): the header is unreadable")
        }
        if let checkpoint = report.checkpoint, !checkpoint.agreesWithJournal {
            problems.append("\(report.path): the checkpoint (\(JournalStorage.checkpointFileName)) disagrees with the journal; delete it (it is a cache)")
        }
        self.init(
            storage: "journal \(report.path)",
            publicBookmarks: report.livePublicBookmarks,
            privateBookmarks: report.livePrivateBookmarks,
            bytes: report.bytes,
            problems: problems,
            journal: report
        )
    }
}
