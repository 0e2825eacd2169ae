import Foundation

/// A moment's calendar fields in Japan's time (UTC+9, which has no daylight saving), whole
/// seconds rounded down: what Pixiv's dates and image paths spell.
///
/// By arithmetic on the seconds (Howard Hinnant's civil-from-days algorithm for the proleptic
/// Gregorian calendar), not `Calendar`: the simulators spell a date for every work they make,
/// and suites make hundreds of thousands.
package struct JapanTime: Equatable, Sendable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int

    package init(_ date: Date) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + 9 * 3600
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        (hour, minute, second) = (secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
    }

    /// `value` in decimal, with zeros in front up to `width` digits.
    package static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
