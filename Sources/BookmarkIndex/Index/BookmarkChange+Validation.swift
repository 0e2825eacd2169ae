import Foundation

extension BookmarkChange {
    /// Checks that every change of a batch can be stored and read back as it is: every date is
    /// a finite moment (the journal writes dates as JSON numbers, which have no NaN or
    /// infinity).
    ///
    /// The store and the journal call it before anything is written, so a wrong argument is an
    /// error and never a trap on the I/O thread.
    ///
    /// - Throws: ``BookmarkIndexError/Code/invalidArgument`` naming the change (by its position
    ///   in the batch and its key or list) and the field.
    static func validate(_ changes: [BookmarkChange]) throws {
        for (position, change) in changes.enumerated() {
            guard let field = change.nonFiniteDateField else { continue }
            throw BookmarkIndexError(
                .invalidArgument,
                "Change \(position + 1) of the batch (\(change.subject)) has a \(field) that is not a finite date (NaN or infinite); nothing was written."
            )
        }
    }

    /// The name of the first date field that is NaN or infinite, if any. Every write checks
    /// every change: the fields are looked at one by one, with nothing allocated.
    private var nonFiniteDateField: String? {
        func isFinite(_ date: Date?) -> Bool { date?.timeIntervalSinceReferenceDate.isFinite ?? true }
        switch self {
        case .upsert(let bookmark):
            if !isFinite(bookmark.illust.createDate) { return "createDate" }
            if !isFinite(bookmark.firstIndexedAt) { return "firstIndexedAt" }
            if !isFinite(bookmark.lastSeenAt) { return "lastSeenAt" }
            if !isFinite(bookmark.vanishedAt) { return "vanishedAt" }
            return nil
        case .setMetadata(let metadata, _):
            if !isFinite(metadata.lastFullSync) { return "lastFullSync" }
            if !isFinite(metadata.lastDeltaSync) { return "lastDeltaSync" }
            return nil
        case .remove, .removeAll:
            return nil
        }
    }

    /// What the change is about, as a message names it.
    private var subject: String {
        switch self {
        case .upsert(let bookmark): "upsert of \(bookmark.key)"
        case .remove(let key): "removal of \(key)"
        case .removeAll(let restrict): "removal of every \(restrict) bookmark"
        case .setMetadata(_, let restrict): "metadata of the \(restrict) list"
        }
    }
}

extension BookmarkIndexState {
    /// Checks that every date the state holds is finite, so it can be written whole: a state
    /// built with ``apply(_:)-(Sequence<BookmarkChange>)`` takes any date, but only finite ones
    /// can be stored.
    ///
    /// - Throws: ``BookmarkIndexError/Code/invalidArgument`` naming the first row or list with
    ///   a date that is NaN or infinite. O(n) over the rows.
    func validateDates() throws {
        for restrict in [Restrict.public, .private] {
            let list = lists[restrict.listIndex]
            for row in list.slots where row.isLive {
                let finite = row.createDate.isFinite && row.firstIndexedAt.isFinite && row.lastSeenAt.isFinite
                    && row.vanishedAt.isFinite
                if !finite {
                    let dates = [
                        ("createDate", row.createDate), ("firstIndexedAt", row.firstIndexedAt),
                        ("lastSeenAt", row.lastSeenAt), ("vanishedAt", row.vanishedAt),
                    ]
                    let field = dates.first { !$0.1.isFinite }?.0 ?? "date"
                    throw BookmarkIndexError(
                        .invalidArgument,
                        "The bookmark \(BookmarkKey(illustID: row.illustID, restrict: restrict)) has a \(field) that is not a finite date (NaN or infinite); a state holding it cannot be stored."
                    )
                }
            }
            try BookmarkChange.validate([.setMetadata(metadata(for: restrict), for: restrict)])
        }
    }
}
