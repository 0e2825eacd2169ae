import Foundation

/// The `X-Client-Time` and `X-Client-Hash` headers Pixiv's token endpoint expects on every
/// request: the time the request is made, in RFC 3339 with a numeric offset
/// (`2026-12-01T07:00:00+00:00`), and the lowercase hex MD5 of that exact text followed by the
/// hash secret Pixiv's apps publish.
package enum ClientHash {
    /// The secret Pixiv's apps append to the time before hashing it.
    package static let secret = "28c1fdd170a5204386cb1313c7077b34f83e4aaf4aa829ce78c231e05b0bae2c"

    /// The two headers for a request sent at `date`.
    package static func headers(at date: Date) -> HTTPHeaders {
        let time = clientTime(date)
        return ["X-Client-Time": time, "X-Client-Hash": hash(time: time)]
    }

    /// The hash of `time`, exactly as sent in `X-Client-Time`.
    package static func hash(time: String) -> String {
        Hex.encode(MD5.hash(Array((time + secret).utf8)))
    }

    /// `date` in UTC as `yyyy-MM-dd'T'HH:mm:ss+00:00`, whole seconds.
    package static func clientTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(parts.year ?? 1970)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))+00:00"
    }
}
