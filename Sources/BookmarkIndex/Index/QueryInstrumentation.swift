#if DEBUG
import Synchronization

/// What a query read, in debug builds, for tests that prove a query reads only what it should
/// (a histogram no bookmark, a tag filter only the postings of the tags it names).
final class QueryReads: Sendable {
    private let rows = Atomic<Int>(0)
    private let tags = Mutex<Set<TagID>>([])

    /// Rows read.
    var rowCount: Int { rows.load(ordering: .relaxed) }
    /// The tags whose postings were read.
    var postingsRead: Set<TagID> { tags.withLock { $0 } }

    func readRow() { rows.add(1, ordering: .relaxed) }
    func readPostings(of tag: TagID) { _ = tags.withLock { $0.insert(tag) } }

    /// The reads of the current task, when a test is watching.
    @TaskLocal static var current: QueryReads?
}
#endif
