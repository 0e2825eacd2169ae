import Foundation

/// The median and percentiles of a set of timed samples, in milliseconds.
struct Figure: Sendable {
    var samples: [Double]

    init(samples: [Double]) {
        precondition(!samples.isEmpty, "a figure needs at least one sample")
        self.samples = samples.sorted()
    }

    /// The middle sample (the mean of the two middle ones for an even count).
    var median: Double {
        let count = samples.count
        return count % 2 == 1 ? samples[count / 2] : (samples[count / 2 - 1] + samples[count / 2]) / 2
    }

    /// The nearest-rank 90th percentile: with 5 samples, the slowest.
    var p90: Double { percentile(0.9) }

    /// The nearest-rank 99th percentile: with fewer than 100 samples, the slowest.
    var p99: Double { percentile(0.99) }

    /// The slowest sample.
    var maximum: Double { samples[samples.count - 1] }

    /// The nearest-rank percentile `fraction` (0.9 for p90): the smallest sample that at least
    /// that fraction of the samples do not exceed.
    func percentile(_ fraction: Double) -> Double {
        samples[min(samples.count - 1, max(0, Int((Double(samples.count) * fraction).rounded(.up)) - 1))]
    }

    /// This figure with every sample multiplied by `factor` (a total turned into a per-unit time).
    func scaled(by factor: Double) -> Figure {
        Figure(samples: samples.map { $0 * factor })
    }
}

/// How many times each item runs.
struct Sampling: Sendable {
    var warmUps = 1
    var samples = 5

    /// Runs `body` `warmUps` times, discarding the result, then `samples` times; `body` times
    /// the part that counts itself (usually with ``elapsedMilliseconds(_:)``), so that per-sample setup such as
    /// creating a fresh directory stays out of the figure.
    func measure(_ body: () throws -> Double) rethrows -> Figure {
        for _ in 0..<warmUps { _ = try body() }
        var results: [Double] = []
        for _ in 0..<samples { results.append(try body()) }
        return Figure(samples: results)
    }

    /// The asynchronous form of ``measure(_:)``.
    func measure(_ body: () async throws -> Double) async rethrows -> Figure {
        for _ in 0..<warmUps { _ = try await body() }
        var results: [Double] = []
        for _ in 0..<samples { results.append(try await body()) }
        return Figure(samples: results)
    }
}

/// The milliseconds `body` takes.
func elapsedMilliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return milliseconds(ContinuousClock.now - start)
}

/// The milliseconds `body` takes.
func elapsedMilliseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return milliseconds(ContinuousClock.now - start)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

/// Writes every dirty page out (`sync(2)`), untimed, before an item that reads or rewrites
/// files: so that neither side's figure pays for the writeback of what the items before wrote
/// (compaction leaves the new checkpoint unsynced, and the kernel writing it out during the
/// first of the two opens measured, ours, made it slower by up to a third).
func settleWrites() {
    sync()
}
