import Foundation

/// The account's requests of the last day, counted in quarter-hour buckets of wall-clock time,
/// as a pure value: how many went out in any 24 hours, and when the next one may.
///
/// A request counts in the bucket it started in. Every 24-hour window ending at `t` lies within
/// the 97 buckets from `t`'s back to the one 24 hours before it, so counting those is never less
/// than the true count in any window: the bound is kept, at the cost of up to a quarter of an
/// hour of slack. Buckets are wall-clock time because the spend outlives the process (it is
/// saved with the list's record); after a clock stepped back, buckets "in the future" go on
/// counting (folded into the present one at the next request), so the error is always on the
/// safe side.
struct DailyRequestLedger: Sendable, Hashable {
    static let bucketLength: TimeInterval = 900
    /// Buckets a day spans: 96, plus the one the window's start falls in.
    static let bucketsPerWindow: Int64 = 97

    /// Requests per bucket, by bucket number (seconds since the reference date ÷ 900).
    private(set) var counts: [Int64: Int] = [:]

    init(counts: [Int64: Int] = [:]) {
        self.counts = counts.filter { $0.value > 0 }
    }

    static func bucket(of date: Date) -> Int64 {
        let seconds = date.timeIntervalSinceReferenceDate / bucketLength
        guard seconds.isFinite else { return seconds < 0 ? Int64.min / 2 : Int64.max / 2 }
        return Int64(max(min(seconds.rounded(.down), 1e15), -1e15))
    }

    /// Requests counted in the day ending at `now` (never less than in any 24 hours ending then).
    func spent(at now: Date) -> Int {
        let first = Self.bucket(of: now) - (Self.bucketsPerWindow - 1)
        return counts.reduce(0) { $1.key >= first ? $0.saturatingAdd($1.value) : $0 }
    }

    /// A request started at `now`; buckets older than a day are forgotten.
    mutating func record(at now: Date) {
        let bucket = Self.bucket(of: now)
        let first = bucket - (Self.bucketsPerWindow - 1)
        var kept: [Int64: Int] = [:]
        for (key, count) in counts where key >= first {
            // Buckets ahead of now (a clock stepped back) fold into now's: still counted, and
            // the ledger never spans more than a day.
            kept[min(key, bucket), default: 0] = kept[min(key, bucket), default: 0].saturatingAdd(count)
        }
        kept[bucket, default: 0] = kept[bucket, default: 0].saturatingAdd(1)
        counts = kept
    }

    /// The earliest time at or after `now` when one more request keeps the day's count within
    /// `limit`; `nil` when no time does (a limit below one).
    func nextAllowed(limit: Int, now: Date) -> Date? {
        guard limit >= 1 else { return nil }
        if spent(at: now) < limit { return now }
        // Each bucket boundary ahead drops the oldest bucket out of the window.
        let current = Self.bucket(of: now)
        for step in 1...Self.bucketsPerWindow {
            let boundary = Date(timeIntervalSinceReferenceDate: Double(current + step) * Self.bucketLength)
            if spent(at: boundary) < limit { return boundary }
        }
        // Only buckets "in the future" (a clock stepped back) hold the count: wait them out.
        let last = counts.keys.max() ?? current
        return Date(timeIntervalSinceReferenceDate: Double(last + Self.bucketsPerWindow) * Self.bucketLength)
    }

    /// The larger count of each bucket: two saved copies of the account's ledger (one per list)
    /// merged without losing a request either saw.
    func merged(with other: DailyRequestLedger) -> DailyRequestLedger {
        DailyRequestLedger(counts: counts.merging(other.counts, uniquingKeysWith: max))
    }
}

extension DailyRequestLedger: Decodable {
    /// Saved as `{"start": first bucket, "counts": [requests per bucket from it]}` (see
    /// ``span``): at most 97 small numbers.
    private enum CodingKeys: String, CodingKey { case start, counts }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(Int64.self, forKey: .start)
        let list = try container.decode([Int].self, forKey: .counts)
        guard list.count <= Int(Self.bucketsPerWindow) * 2, list.allSatisfy({ $0 >= 0 }),
              start > Int64.min / 4, start < Int64.max / 4
        else {
            throw DecodingError.dataCorruptedError(forKey: .counts, in: container, debugDescription: "not a day's request counts")
        }
        var counts: [Int64: Int] = [:]
        for (offset, count) in list.enumerated() where count > 0 { counts[start + Int64(offset)] = count }
        self.init(counts: counts)
    }

    /// What is saved: the first bucket, and the requests per bucket from it to the last.
    var span: (start: Int64, counts: [Int]) {
        let start = counts.keys.min() ?? 0
        let end = counts.keys.max() ?? -1
        return (start, end < start ? [] : (start...end).map { counts[$0] ?? 0 })
    }
}
