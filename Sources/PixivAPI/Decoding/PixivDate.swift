import Foundation

/// Pixiv's `create_date`, `2024-01-02T03:04:05+09:00`, read without Foundation's date parser in
/// the common case: a sync reads one for every work of every page, and
/// `Date.ISO8601FormatStyle` costs about a microsecond each.
///
/// The fast reading takes exactly that shape (or `Z` for the zone) with every field in its
/// everyday range, and gives the instant `ISO8601FormatStyle(includingFractionalSeconds: false)`
/// gives for it. Anything else, a fraction or a leap second included, goes to that format style,
/// which decides: the result never depends on which reading ran.
enum PixivDate {
    static func parse(_ text: String) -> Date? {
        if let date = text.utf8.withContiguousStorageIfAvailable(fastParse) ?? nil { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    /// The instant `text` names when it has the everyday shape, else `nil`.
    static func fastParse(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 25 || text.count == 20 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<start + count {
                let digit = Int(text[index]) - 48
                guard 0 <= digit && digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        func byte(_ index: Int, is character: Unicode.Scalar) -> Bool { text[index] == UInt8(ascii: character) }
        guard byte(4, is: "-"), byte(7, is: "-"), byte(10, is: "T"), byte(13, is: ":"), byte(16, is: ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              year >= 1900, (1...12).contains(month), (1...daysIn(month, of: year)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let offset: Int
        if text.count == 20 {
            guard byte(19, is: "Z") else { return nil }
            offset = 0
        } else {
            guard byte(22, is: ":"), byte(19, is: "+") || byte(19, is: "-"),
                  let offsetHours = number(20, 2), let offsetMinutes = number(23, 2), offsetMinutes < 60,
                  offsetHours * 60 + offsetMinutes <= 18 * 60  // what `TimeZone` allows
            else { return nil }
            offset = (byte(19, is: "+") ? 1 : -1) * (offsetHours * 3600 + offsetMinutes * 60)
        }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The days in `month` of `year` in the proleptic Gregorian calendar.
    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date, by the civil-calendar arithmetic of Howard Hinnant's
    /// `days_from_civil`.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
