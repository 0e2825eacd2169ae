@testable import BookmarkSync
import BookmarkIndex
import Foundation

/// The sync engine's record of a list, reached through the metadata as tests set scenes and
/// read results (the library itself reads and writes it through ``ListSyncRecord``).
extension BookmarkIndexMetadata {
    var record: ListSyncRecord {
        get { ListSyncRecord(self) }
        set { self = newValue.stored(in: self) }
    }

    var fullWalkPosition: FullWalkPosition? {
        get { record.fullWalkPosition }
        set { record.fullWalkPosition = newValue }
    }

    var unbookmarkedInApp: [Int: Date] {
        get { record.unbookmarkedInApp }
        set { record.unbookmarkedInApp = newValue }
    }

    var bookmarkedInApp: [Int: Date] {
        get { record.bookmarkedInApp }
        set { record.bookmarkedInApp = newValue }
    }

    var pause: ListPause? {
        get { record.pause }
        set { record.pause = newValue }
    }
}
