import BookmarkIndex
import Foundation

/// A work a sync of one list meets that the other list holds: Pixiv has moved it (it keeps one
/// bookmark per work), so the other list's row goes, unless the app recorded it there since
/// the other list's last complete sync (the move was the app's, and this page is older).
struct MovesBetweenLists {
    let other: Restrict
    let index: BookmarkIndexState
    let recordedThere: [Int: Date]

    init(into restrict: Restrict, index: BookmarkIndexState) {
        other = restrict == .public ? .private : .public
        self.index = index
        recordedThere = ListSyncRecord(index.metadata(for: other)).bookmarkedInApp
    }

    /// The removal of `illustID`'s row from the other list, if it has one to remove.
    func removal(of illustID: Int) -> [BookmarkChange] {
        let key = BookmarkKey(illustID: illustID, restrict: other)
        guard recordedThere[illustID] == nil, index.contains(key) else { return [] }
        return [.remove(key)]
    }
}
