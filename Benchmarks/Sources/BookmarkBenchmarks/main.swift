import BookmarkIndex
import Foundation

// BookmarkBenchmarks: this library's journal, index and sync engine measured side by side with
// SQLite doing the same work in the same process. Run on a release build:
//
//   swift run -c release --package-path Benchmarks BookmarkBenchmarks [--n 100000] [--samples 5] [--json] [--only <name,...>]
//
// Every item runs once to warm up, then `--samples` times; the table (or, with --json, one JSON
// object on standard output) gives the median and p90. Progress goes to standard error.

let usage = """
    usage: BookmarkBenchmarks [--n <bookmarks>] [--samples <count>] [--json] [--only <name,...>]
      --n        bookmarks in the data set (default 100000)
      --samples  timed samples per item, after one warm-up (default 5, at least 5)
      --json     print one JSON object instead of the table
      --only     run only these items, comma-separated (what a later item needs from an earlier
                 one is then made untimed), e.g. --only pool_lateness_p99,query_p99_during_durable_sync;
                 the items: \(BenchmarkRun.itemNames.joined(separator: ", "))

    For profiling an open on its own (e.g. under valgrind --tool=callgrind or perf):
      --write-journal <dir>          write a compacted journal of --n bookmarks into <dir>, then exit
      --uncompacted                  with --write-journal: append every batch twice and do not compact (open_uncompacted's journal)
      \(MemoryProbe.flag) <dir>   open the store in <dir>, print its memory figures, then exit
      \(AccountsOpen.memoryFlag) <dir>  one round of accounts_open_1000 over the journals in <dir>, print its memory figures, then exit
      --time-open <dir>              open the store in <dir> (and ask for its top 50 tags) 7 times, print each time in ms
      --whole                        with --time-open: delete the checkpoint first and write none, so each open reads the journal whole
      --time-encode                  make the --n bookmarks' batches into their journal lines, as appends do, 7 times; print each time in ms
    """

struct Arguments {
    var n = 100_000
    var samples = 5
    var json = false
    /// The items `--only` names; `nil` runs every item.
    var only: Set<String>?
    var memoryProbeDirectory: String?
    var accountsMemoryDirectory: String?
    var journalDirectory: String?
    var timeOpenDirectory: String?
    var timeOpenWhole = false
    var uncompacted = false
    var timeEncode = false

    init(_ arguments: [String]) throws {
        var rest = arguments.dropFirst()
        func value(of option: String) throws -> String {
            guard let value = rest.popFirst() else { throw HarnessError("\(option) needs a value\n\(usage)") }
            return value
        }
        func count(of option: String, minimum: Int) throws -> Int {
            let text = try value(of: option)
            guard let parsed = Int(text), parsed >= minimum else {
                throw HarnessError("\(option) must be a whole number ≥ \(minimum), not \(text)\n\(usage)")
            }
            return parsed
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--n": n = try count(of: argument, minimum: 1_000)
            case "--samples": samples = try count(of: argument, minimum: 5)
            case "--json": json = true
            case "--only":
                let names = try value(of: argument).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let unknown = names.filter { !BenchmarkRun.itemNames.contains($0) }
                guard !names.isEmpty else { throw HarnessError("--only needs at least one item name\n\(usage)") }
                guard unknown.isEmpty else {
                    throw HarnessError("--only: no item named \(unknown.joined(separator: ", ")); the items: \(BenchmarkRun.itemNames.joined(separator: ", "))")
                }
                only = Set(names)
            case MemoryProbe.flag: memoryProbeDirectory = try value(of: argument)
            case AccountsOpen.memoryFlag: accountsMemoryDirectory = try value(of: argument)
            case "--write-journal": journalDirectory = try value(of: argument)
            case "--time-open": timeOpenDirectory = try value(of: argument)
            case "--whole": timeOpenWhole = true
            case "--uncompacted": uncompacted = true
            case "--time-encode": timeEncode = true
            case "--help", "-h":
                print(usage)
                exit(0)
            default: throw HarnessError("unknown argument \(argument)\n\(usage)")
            }
        }
    }
}

func machineDescription() -> String {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    var model = "unknown CPU"
    if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
       let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
       let colon = line.firstIndex(of: ":") {
        model = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let kernel = (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))
        .map { "Linux " + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        ?? ProcessInfo.processInfo.operatingSystemVersionString
    return "\(cores) cores, \(model), \(kernel)"
}

func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

do {
    let arguments = try Arguments(CommandLine.arguments)
    if let directory = arguments.memoryProbeDirectory {
        try await MemoryProbe.runChild(directory: directory)
        exit(0)
    }
    if let directory = arguments.accountsMemoryDirectory {
        try await AccountsOpen.runMemoryChild(root: directory)
        exit(0)
    }
    if let directory = arguments.journalDirectory, arguments.uncompacted {
        let storage = try await JournalStorage.open(directory: URL(fileURLWithPath: directory, isDirectory: true), options: JournalItems.options(.none))
        let batches = Dataset(count: arguments.n).changeBatches
        for batch in batches + batches { try await storage.append(batch) }
        try await storage.close()
        exit(0)
    }
    if let directory = arguments.journalDirectory {
        let store = try await BookmarksIndexStore.open(directory: URL(fileURLWithPath: directory, isDirectory: true), options: JournalItems.options(.none))
        for batch in Dataset(count: arguments.n).changeBatches { try await store.apply(batch) }
        try await store.compact()
        try await store.close()
        exit(0)
    }
    if let directory = arguments.timeOpenDirectory {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        var options = JournalItems.options(.always)
        if arguments.timeOpenWhole {
            options.checkpointMinimumBytes = .max
            try? FileManager.default.removeItem(at: url.appendingPathComponent(JournalStorage.checkpointFileName))
        }
        for _ in 0..<7 {
            var store: BookmarksIndexStore?
            let elapsed = try await elapsedMilliseconds {
                store = try await BookmarksIndexStore.open(directory: url, options: options)
                _ = await store?.tagHistogram(in: .public, limit: 50)
            }
            print(String(format: "%.2f ms", elapsed))
            try await store?.close()
        }
        exit(0)
    }
    if arguments.timeEncode {
        JournalItems.timeEncoding(Dataset(count: arguments.n).changeBatches)
        exit(0)
    }
    let start = ContinuousClock.now
    let sampling = Sampling(warmUps: 1, samples: arguments.samples)
    let scratch = try Scratch()
    do {
        progress("generating \(arguments.n) bookmarks")
        let dataset = Dataset(count: arguments.n)
        let run = BenchmarkRun(dataset: dataset, sampling: sampling, scratch: scratch, wanted: arguments.only, log: { progress("measuring " + $0) })
        let measured = try await run.run()
        scratch.removeAll()
        let report = Report(
            n: arguments.n,
            machine: machineDescription(),
            sampling: sampling,
            results: measured.results,
            memory: measured.memory,
            memoryProbed: arguments.only?.contains("rss_bytes_per_bookmark") ?? true,
            memoryTarget: measured.memory.map { Target(text: "≤ 500 B", isMet: $0.peakBytesPerBookmark <= 500) },
            notes: measured.notes,
            seconds: milliseconds(ContinuousClock.now - start) / 1000
        )
        print(arguments.json ? report.json : report.table)
    } catch {
        scratch.removeAll()
        throw error
    }
} catch {
    progress("BookmarkBenchmarks: \(error)")
    exit(1)
}
