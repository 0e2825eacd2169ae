import BookmarkIndex
import BookmarkIndexTesting
import Foundation

// Figures for the in-memory index. Each item runs once to warm up, then `samples` times;
// the median and p90 are reported. Usage: BookmarkBenchmarks [--n 100000] [--samples 5]

func option(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
          let parsed = Int(arguments[index + 1]), parsed > 0
    else { return value }
    return parsed
}

let n = option("--n", default: 100_000)
let samples = option("--samples", default: 5)

func measure(_ body: () -> Void) -> (median: Double, p90: Double) {
    body()
    var times: [Double] = []
    for _ in 0..<samples {
        let start = ContinuousClock.now
        body()
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
    }
    times.sort()
    return (times[times.count / 2], times[min(times.count - 1, Int((Double(times.count) * 0.9).rounded(.up)) - 1)])
}

let generator = SyntheticBookmarks()
let rows = generator.indexedBookmarks(generator.illusts(count: n, seed: 1), in: .public)
let batches = stride(from: 0, to: rows.count, by: 30).map { rows[$0..<min($0 + 30, rows.count)].map(BookmarkChange.upsert) }

var built = BookmarkIndexState()
let build = measure {
    var state = BookmarkIndexState()
    for batch in batches { state.apply(batch) }
    built = state
}
let names = built.tagHistogram(in: .public).map(\.name)
let histogram = measure { _ = built.tagHistogram(in: .public, limit: 50) }
let filter = BookmarkFilter(allOf: [names[50], names[60]])
let filterAllOf2 = measure { _ = built.bookmarks(in: .public, matching: filter, limit: 100) }

print("n = \(n), \(samples) samples after a warm-up; milliseconds")
print("name                 median        p90")
for (name, figure) in [("build_index", build), ("histogram", histogram), ("filter_all_of_2", filterAllOf2)] {
    print(name.padding(toLength: 16, withPad: " ", startingAt: 0), String(format: "%10.3f %10.3f", figure.median, figure.p90))
}
