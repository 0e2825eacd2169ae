import Foundation

/// Until when a list's syncing is paused, and why, as the sync engine records it in the list's
/// ``ListSyncRecord``, so that a process started during it waits it out.
///
/// The engine's own record: an app reads it (``ListSyncRecord/pause``, and
/// ``ListSyncStatus/paused(until:reason:)`` while it lasts) but never makes one.
public struct ListPause: Sendable, Hashable {
    /// When the pause ends.
    public let until: Date
    /// The code of the error that caused it (``BookmarkSyncError/Code``, by name).
    public let code: String
    /// What went wrong, as the error said.
    public let message: String

    /// Creates a pause record.
    init(until: Date, code: String, message: String) {
        self.until = until
        self.code = code
        self.message = message
    }
}
