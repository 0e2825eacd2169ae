import BookmarkIndex
import Foundation

/// A change to one list's record that an event decided: applied in the store's turn to the
/// record as it is then, so nothing else in it is overwritten with an older copy.
struct RecordEdit: Sendable {
    var restrict: Restrict
    /// A pause to save (it holds across a restart).
    var pause: ListPause?
    /// Forget the walk's cursor and the delta's position: they failed in a way retrying will
    /// not fix, so the next sync starts over.
    var clearsCursors = false
    /// The account's pacing to save (`.some(nil)` clears it); `nil` leaves it as it is.
    var pacing: LearnedPacing??
    /// The account's spend of the day to save; `nil` leaves it as it is.
    var dailySpend: DailyRequestLedger?
    /// The kill switch to save (`true`: indexing is off); `nil` leaves it as it is.
    var indexingSwitchedOff: Bool?

    init(_ restrict: Restrict, pause: ListPause? = nil, clearsCursors: Bool = false, pacing: LearnedPacing?? = nil) {
        self.restrict = restrict
        self.pause = pause
        self.clearsCursors = clearsCursors
        self.pacing = pacing
    }

    /// `record` with this edit made.
    func applied(to record: ListSyncRecord) -> ListSyncRecord {
        var record = record
        if let pause { record.pause = pause }
        if clearsCursors {
            record.fullWalkPosition = nil
            record.deltaCursor = nil
        }
        if let pacing { record.pacing = pacing }
        if let dailySpend { record.dailySpend = dailySpend }
        if let indexingSwitchedOff { record.indexingSwitchedOff = indexingSwitchedOff }
        return record
    }

    /// The batch that makes `edits` in `index`: one metadata change per list edited.
    static func changes(_ edits: [RecordEdit], in index: BookmarkIndexState) -> [BookmarkChange] {
        Restrict.allCases.compactMap { restrict in
            let mine = edits.filter { $0.restrict == restrict }
            guard !mine.isEmpty else { return nil }
            let metadata = index.metadata(for: restrict)
            let record = mine.reduce(ListSyncRecord(metadata)) { $1.applied(to: $0) }
            return .setMetadata(record.stored(in: metadata), for: restrict)
        }
    }
}
