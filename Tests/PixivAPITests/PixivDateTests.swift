import BookmarkIndexTesting
import Foundation
import Testing
@testable import PixivAPI

/// `create_date` read by the client's own reading gives what Foundation's format style gives.
@Suite struct PixivDateTests {
    static func foundation(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    static func fast(_ text: String) -> Date? {
        Array(text.utf8).withUnsafeBufferPointer(PixivDate.fastParse)
    }

    /// Random instants from 1900 to 2200 in random zones: the fast reading reads each, and
    /// agrees with Foundation.
    @Test func everydayDatesAgreeWithFoundation() {
        var random = SeededRandom(seed: 9)
        var formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: false)
        for _ in 0..<20_000 {
            // From 1900-01-02 (a day in, so that no zone writes a date in 1899) to about 2200.
            let seconds = TimeInterval(Int64(random.next() % 9_400_000_000) - 2_208_988_800 + 86_400)
            let offsetMinutes = Int(random.next() % (14 * 60 * 2 + 1)) - 14 * 60
            formatter.timeZone = TimeZone(secondsFromGMT: offsetMinutes * 60)!
            let written = Date(timeIntervalSince1970: seconds).formatted(formatter.timeZoneSeparator(.colon))
            let fast = Self.fast(written)
            #expect(fast != nil, "\(written)")
            #expect(fast == Self.foundation(written), "\(written)")
            #expect(PixivDate.parse(written) == Date(timeIntervalSince1970: seconds), "\(written)")
        }
    }

    /// Pixiv's own shape, UTC's `Z`, and every edge of the fields.
    @Test(arguments: [
        "2024-01-02T03:04:05+09:00", "2024-01-02T03:04:05Z", "2024-02-29T23:59:59-12:00", "2000-02-29T00:00:00+14:00",
        "1900-01-01T00:00:00+00:00", "2100-12-31T23:59:59-00:30", "2023-06-30T12:00:00+05:45", "2024-01-02T03:04:05+18:00",
        "2024-01-02T03:04:05-18:00", "9999-12-31T23:59:59Z", "2024-01-02T03:04:05-00:00",
    ])
    func edgesAgreeWithFoundation(text: String) {
        #expect(Self.fast(text) != nil)
        #expect(Self.fast(text) == Self.foundation(text))
    }

    /// What the fast reading leaves to Foundation: it reads none of these, and `parse` gives
    /// what Foundation gives (a date or `nil`).
    @Test(arguments: [
        "", "2024-01-02", "2024-01-02T03:04:05", "2024-01-02T03:04:05.123+09:00", "2024-01-02T03:04:05+0900",
        "2023-02-29T00:00:00+09:00", "2024-13-01T00:00:00+09:00", "2024-01-32T00:00:00+09:00", "2024-01-02T24:00:00+09:00",
        "2024-01-02T23:60:00+09:00", "2024-12-31T23:59:60Z", "2024-01-02 03:04:05+09:00", "2024-01-02T03:04:05z",
        "1899-12-31T23:59:59+09:00", "２０２４-01-02T03:04:05+09:00", "2024-01-02T03:04:05+09:0a", "2024-01-02T03:04:05*09:00",
        "2024-01-02T03:04:05+18:01", "2024-01-02T03:04:05+23:59", "2024-01-02T03:04:05-09:60",
    ])
    func oddShapesAreFoundationsToRead(text: String) {
        #expect(Self.fast(text) == nil)
        #expect(PixivDate.parse(text) == Self.foundation(text))
    }
}
