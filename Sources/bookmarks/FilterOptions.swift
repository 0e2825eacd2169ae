import BookmarkIndex
import Foundation

// The options `list`, `tags` and `artists` share to filter by a work's fields (issue 24), and
// `list`'s sort.

let fieldFilterOptions: [OptionSpec] = [
    OptionSpec(name: "ai", kind: .value(placeholder: "exclude|only"), help: "Leave AI-generated works out (works Pixiv says nothing of stay), or list only them."),
    OptionSpec(name: "rating", kind: .repeatable(placeholder: "all-ages|r18|r18g"), help: "Only works of these age ratings (repeat, or separate with commas)."),
    OptionSpec(name: "type", kind: .repeatable(placeholder: "illust|manga|ugoira"), help: "Only works of these kinds (repeat, or separate with commas)."),
    OptionSpec(name: "pages", kind: .value(placeholder: "N|N-|N-M"), help: "Only works of N pages, N or more, or N to M."),
    OptionSpec(name: "artist", kind: .repeatable(placeholder: "ID"), help: "Only works by these artists, by Pixiv user ID (repeat, or separate with commas)."),
    OptionSpec(name: "created", kind: .value(placeholder: "FROM..TO"), help: "Only works posted from FROM up to (not including) TO, dates as YYYY-MM-DD in UTC; either end may be left out."),
]

let sortOptions: [OptionSpec] = [
    OptionSpec(name: "sort", kind: .value(placeholder: "popular|rate|created|pages"), help: "Sort by bookmarks, bookmarks per view, posting date or page count, the most first (default: bookmark order, newest first). Ties come in bookmark order."),
    OptionSpec(name: "ascending", kind: .flag, help: "With --sort, the least first."),
]

/// `filter` narrowed by the field options in `arguments`.
func applyingFieldFilters(_ arguments: ParsedArguments, to filter: BookmarkFilter) throws -> BookmarkFilter {
    var filter = filter
    if let ai = arguments.value("ai") {
        switch ai {
        case "exclude": filter.ai = .excludingAI
        case "only": filter.ai = .onlyAI
        default: throw UsageError("'--ai' must be exclude or only, not '\(ai)'")
        }
    }
    let ratings: [String: AgeRating] = ["all-ages": .allAges, "r18": .r18, "r18g": .r18g]
    for word in listValues(arguments, "rating") {
        guard let rating = ratings[word.lowercased()] else { throw UsageError("'--rating' must be all-ages, r18 or r18g, not '\(word)'") }
        filter.ageRatings.insert(rating)
    }
    for word in listValues(arguments, "type") {
        guard ["illust", "manga", "ugoira"].contains(word) else { throw UsageError("'--type' must be illust, manga or ugoira, not '\(word)'") }
        filter.types.insert(IllustType(rawValue: word))
    }
    if let pages = arguments.value("pages") {
        filter.pageCount = try pageRange(pages)
    }
    for word in listValues(arguments, "artist") {
        guard let id = Int(word), id > 0 else { throw UsageError("'--artist' must be a Pixiv user ID, not '\(word)'") }
        filter.artistIDs.insert(id)
    }
    if let created = arguments.value("created") {
        filter.createDate = try dateRange(created)
    }
    return filter
}

/// The sort `--sort` and `--ascending` ask for: bookmark order when there is no `--sort`.
func sortOption(_ arguments: ParsedArguments) throws -> BookmarkSort {
    let keys: [String: BookmarkSort.Key] = ["popular": .popularity, "rate": .bookmarkRate, "created": .createDate, "pages": .pageCount]
    guard let word = arguments.value("sort") else {
        if arguments.flag("ascending") { throw UsageError("'--ascending' needs '--sort'") }
        return .bookmarkOrder
    }
    guard let key = keys[word] else { throw UsageError("'--sort' must be popular, rate, created or pages, not '\(word)'") }
    return BookmarkSort(key, arguments.flag("ascending") ? .ascending : .descending)
}

private func listValues(_ arguments: ParsedArguments, _ name: String) -> [String] {
    arguments.all(name).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
}

/// `N`, `N-` or `N-M` as a range of page counts.
private func pageRange(_ text: String) throws -> ClosedRange<Int> {
    let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let low = Int(parts[0])
    let high = parts.count == 1 ? low : parts[1].isEmpty ? Int.max : Int(parts[1])
    guard let low, let high, low >= 0, low <= high else {
        throw UsageError("'--pages' must be N, N- or N-M (whole numbers, N at most M), not '\(text)'")
    }
    return low...high
}

/// `FROM..TO` (either end may be empty) as a range of dates, each a UTC day.
private func dateRange(_ text: String) throws -> Range<Date> {
    let usage = UsageError("'--created' must be FROM..TO with dates as YYYY-MM-DD (either end may be left out), not '\(text)'")
    guard let separator = text.range(of: "..") else { throw usage }
    func day(_ part: Substring) throws -> Date? {
        if part.isEmpty { return nil }
        guard let date = try? Date(String(part) + "T00:00:00Z", strategy: .iso8601) else { throw usage }
        return date
    }
    let from = try day(text[..<separator.lowerBound]) ?? .distantPast
    let to = try day(text[separator.upperBound...]) ?? .distantFuture
    guard from <= to else { throw usage }
    return from..<to
}
