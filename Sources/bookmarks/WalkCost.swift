import BookmarkIndex
import BookmarkSync
import Foundation

/// What `status` and `sync --full --dry-run` say about the day's budget and a walk's cost.
enum WalkCost {
    /// `Requests in the last 24 hours: 15 of 3000 (300 kept for deltas)`.
    static func describe(_ usage: DailyRequestUsage?) -> String {
        guard let usage else { return "Requests in the last 24 hours: no daily bound set" }
        return "Requests in the last 24 hours: \(usage.spent) of \(usage.limit) (\(usage.keptForDeltas) kept for deltas)"
    }

    /// `a full walk: 3335 requests, about 1 d 2 h (100000 bookmarks, Pixiv's total of …)`.
    static func describe(_ cost: FullWalkCost?, restrict: Restrict) -> String {
        guard let cost else {
            return restrict == .private
                ? "a full walk: cost unknown (Pixiv tells the private list's size only to a walk)"
                : "a full walk: cost unknown (no total from Pixiv yet)"
        }
        let basis: String
        switch cost.basis {
        case .given: basis = "as given"
        case .pixivTotal(let date): basis = "Pixiv's total as of \(isoDate(date))"
        case .indexed: basis = "as indexed; the walk may find more"
        }
        let wait = cost.waitsForDailyBudget ? ", waiting for the day's budget \(cost.duration >= 86_400 ? "between days" : "once")" : ""
        return "a full walk: \(cost.requests) requests, about \(duration(cost.duration))\(wait) (\(cost.bookmarks) bookmarks, \(basis))"
    }

    /// `2 d 3 h`, `1 h 40 min`, `3 min 5 s`.
    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        if total >= 86_400 { return "\(total / 86_400) d \(total % 86_400 / 3_600) h" }
        return SyncDisplay.duration(seconds)
    }

    /// The JSON `status --json` prints for a cost.
    static func object(_ cost: FullWalkCost?) -> JSONValue {
        guard let cost else { return .null }
        return [
            "requests": .int(cost.requests), "seconds": .double(cost.duration.rounded()), "bookmarks": .int(cost.bookmarks),
            "waitsForDailyBudget": .bool(cost.waitsForDailyBudget),
        ]
    }
}

/// A source for an engine that only answers questions (a walk's cost, the day's spend): it
/// never sends a request.
struct NoRequests: BookmarkSource {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "this command sends no request" }
    }

    func totalCount(of restrict: Restrict) async throws -> Int? { throw Refused() }
    func firstPage(of restrict: Restrict) async throws -> BookmarkPage { throw Refused() }
    func nextPage(_ token: String, of restrict: Restrict) async throws -> BookmarkPage { throw Refused() }
}
