import BookmarkIndex
import Foundation

// What a stored record may hold. A part that decodes but holds values no engine writes (an order
// that leaves no room for the rows still to come, a count below zero, a date that is not finite)
// is as damaged as one that does not decode: it is left out, with the reason, and the list syncs
// as if it had never been saved. The arithmetic on what is kept saturates all the same.

extension ListSyncRecord {
    /// The widest a count of pages or rows, or a pacing counter, read from a record may be: far
    /// above anything a sync writes, far enough from the integers' ends that arithmetic on them
    /// cannot overflow.
    static let countRange: ClosedRange<Int> = 0...(1 << 40)
    static let pacingCounterRange: ClosedRange<Int> = 0...10_000
    /// The room a walk needs below its orders, and a delta above its newest: 2⁴⁰ rows. A walk
    /// starts below the oldest row instead of above the newest when there is no such room.
    static let orderRoom: Int64 = 1 << 40
}

extension ListSyncRecord {
    /// Whether reading this record back once stored gives it as it is (less what was read of
    /// damaged parts, since parts are written whole): none of its parts holds what reading
    /// leaves out. When not, only reading it back tells what is kept.
    var readsBackAsItIs: Bool {
        fullWalkPosition?.problem == nil && deltaCursor?.problem == nil && pause?.problem == nil
            && pacing?.problem == nil && (lastKnownTotal.map { $0.count >= 0 } ?? true)
            && unbookmarkedInApp.values.allSatisfy { $0.timeIntervalSinceReferenceDate.isFinite }
            && bookmarkedInApp.values.allSatisfy { $0.timeIntervalSinceReferenceDate.isFinite }
    }
}

extension FullWalkPosition {
    /// Why the cursor cannot be resumed, or `nil` when it can.
    var problem: String? {
        let lowest = Int64.min + ListSyncRecord.orderRoom
        if !ListSyncRecord.countRange.contains(pagesFetched) { return "pages fetched \(pagesFetched) out of range" }
        if nextServerOrder < lowest { return "next order \(nextServerOrder) leaves no room below it" }
        if let first = firstServerOrder, first < lowest { return "first order \(first) leaves no room below it" }
        if !startedAt.timeIntervalSinceReferenceDate.isFinite { return "start date not finite" }
        return nil
    }
}

extension DeltaCursor {
    /// Why the delta's position cannot be resumed, or `nil` when it can.
    var problem: String? {
        if let newest = newestAtStart, newest > Int64.max - ListSyncRecord.orderRoom {
            return "newest order \(newest) leaves no room above it"
        }
        if !ListSyncRecord.countRange.contains(newRows) { return "rows placed \(newRows) out of range" }
        if !startedAt.timeIntervalSinceReferenceDate.isFinite { return "start date not finite" }
        return nil
    }
}

extension ListPause {
    /// Why the pause cannot be honoured, or `nil` when it can.
    var problem: String? {
        until.timeIntervalSinceReferenceDate.isFinite ? nil : "end not finite"
    }
}

extension LearnedPacing {
    /// Why the learned pacing cannot be taken back, or `nil` when it can.
    var problem: String? {
        for (name, interval) in [("interval", interval), ("ceiling interval", ceilingInterval)] {
            if let interval, !(interval.isFinite && interval > 0) { return "\(name) \(interval) is not a positive number of seconds" }
        }
        for (name, date) in [("saved", savedAt), ("ceiling end", ceilingUntil), ("cooldown end", cooldownUntil), ("last trip", lastTrip)] {
            if let date, !date.timeIntervalSinceReferenceDate.isFinite { return "\(name) date not finite" }
        }
        for (name, count) in [("consecutive cooldowns", consecutiveCooldowns), ("recent trips", recentTrips)] {
            if !ListSyncRecord.pacingCounterRange.contains(count) { return "\(name) \(count) out of range" }
        }
        return nil
    }
}
