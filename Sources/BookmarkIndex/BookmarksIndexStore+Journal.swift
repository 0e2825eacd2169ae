import Foundation

extension BookmarksIndexStore {
    /// Opens the store kept in `directory` (created if needed) with the default storage, a
    /// ``JournalStorage``. The file work runs on the options' ``JournalStorage/Options/ioPool``;
    /// the calling task suspends meanwhile.
    ///
    /// What the open repaired (a torn last line, a salvage, a migration) is in ``health()``'s
    /// ``StorageHealth/journal``'s ``JournalHealthReport/recovery``.
    ///
    /// - Throws: ``BookmarkIndexError``, or `CancellationError` when the calling task is
    ///   cancelled before the open starts; see ``JournalStorage/open(directory:options:)``.
    public static func open(directory: URL, options: JournalStorage.Options = JournalStorage.Options()) async throws -> BookmarksIndexStore {
        try await BookmarksIndexStore(storage: JournalStorage.open(directory: directory, options: options))
    }
}
