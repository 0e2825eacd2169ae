import Foundation

extension BookmarksIndexStore {
    /// Opens the store kept in `directory` (created if needed) with the default storage, a
    /// ``JournalStorage``.
    ///
    /// What the open repaired (a torn last line, a salvage, a migration) is in
    /// ``journalHealth()``'s ``JournalHealthReport/recovery``.
    ///
    /// - Throws: ``BookmarkIndexError``; see ``JournalStorage/init(directory:options:)``.
    public init(directory: URL, options: JournalStorage.Options = JournalStorage.Options()) throws {
        try self.init(storage: JournalStorage(directory: directory, options: options))
    }

    /// Reads the journal back from disk and reports its health.
    ///
    /// - Throws: ``BookmarkIndexError/Code/invalidArgument`` when the store does not use a
    ///   ``JournalStorage``.
    public func journalHealth() throws -> JournalHealthReport {
        guard let journal = storage as? JournalStorage else {
            throw BookmarkIndexError(.invalidArgument, "This store does not keep a journal (its storage is \(type(of: storage))).")
        }
        return try journal.healthReport()
    }
}
