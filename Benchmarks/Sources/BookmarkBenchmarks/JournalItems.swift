@_spi(Benchmarks) import BookmarkIndex
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Items 1–5 on this library: the journal's appends, the store's open and compaction, and the
/// index's queries.
struct JournalItems {
    let dataset: Dataset
    let sampling: Sampling
    let scratch: Scratch

    static func options(_ durability: JournalStorage.Options.Durability) -> JournalStorage.Options {
        var options = JournalStorage.Options()
        options.durability = durability
        return options
    }

    /// Where a loop of appends runs.
    enum Caller {
        /// On Swift's cooperative pool, as most callers are: each append hands its write to a
        /// thread of the storage's pool and the loop's task is woken again after it.
        case cooperativePool
        /// In a task that prefers the storage's pool as its executor: each append writes on the
        /// loop's own thread, with no hand-over (``IOThreadPool``'s `TaskExecutor`).
        case storagePool
        /// On the cooperative pool, as an import writes: `append(contentsOf:)` of
        /// ``groupSize`` batches at a time, one hand-over (and one `write`) for each group.
        case cooperativePoolGrouped
    }

    /// Appends every batch to a fresh journal per sample, timing the appends (encode and
    /// `write` per batch). Returns the figure and the directory of the last sample's journal,
    /// which later items reuse.
    func appendUnsynced(from caller: Caller) async throws -> (figure: Figure, directory: URL) {
        var last: URL?
        let figure = try await sampling.measure {
            if let last { scratch.remove(last) }
            let sample = try await appendSample(.none, from: caller)
            last = sample.directory
            return sample.milliseconds
        }
        return (figure, last!)
    }

    /// Durable appends (encode, `write` and `fsync` per batch) and their floor: the very bytes
    /// the journal wrote for each batch (read back from the warm-up's journal, one line per
    /// batch), written by a bare loop of one `write` and one `fsync` per batch into a fresh file
    /// opened the way the journal opens its file. The two alternate, sample by sample, so that
    /// a change in the disk's speed during the run falls on both alike. The appends are timed
    /// from both callers, alternating with each other and the floor in the same way; and so is
    /// the encoding alone (each batch made into its line as an append makes it, no file), once
    /// a round for both: the floor and the encoding are what an append cannot do without.
    func appendDurableWithFloor() async throws -> (ours: Figure, fromStoragePool: Figure, floor: Figure, encoding: Figure, overwriteFloor: Figure) {
        var warmUp = try await appendSample(.always, from: .storagePool)
        scratch.remove(warmUp.directory)
        warmUp = try await appendSample(.always, from: .cooperativePool)
        for _ in 1..<max(sampling.warmUps, 1) {
            scratch.remove(warmUp.directory)
            warmUp = try await appendSample(.always, from: .cooperativePool)
        }
        let bytes = try Data(contentsOf: warmUp.directory.appendingPathComponent(JournalStorage.journalFileName))
        scratch.remove(warmUp.directory)
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) + [0x0A] }
        lines.removeLast() // after the final newline
        let header = lines.removeFirst()
        guard lines.count == dataset.changeBatches.count else {
            throw HarnessError("expected one journal line per batch, found \(lines.count) for \(dataset.changeBatches.count)")
        }
        _ = try floorSample(header: header, lines: lines)
        _ = try overwriteFloorSample(header: header, lines: lines)

        var ours: [Double] = []
        var fromStoragePool: [Double] = []
        var floor: [Double] = []
        var overwriteFloor: [Double] = []
        var encoding: [Double] = []
        let batches = dataset.changeBatches
        let journalLineBytes = lines.reduce(0) { $0 + $1.count }
        for round in 0..<sampling.samples {
            // Each caller goes first in every other round: whatever the sample before leaves
            // behind (a 55 MB journal just removed) falls on both alike.
            let callers: [Caller] = round.isMultiple(of: 2) ? [.cooperativePool, .storagePool] : [.storagePool, .cooperativePool]
            for caller in callers {
                let sample = try await appendSample(.always, from: caller)
                scratch.remove(sample.directory)
                if caller == .cooperativePool { ours.append(sample.milliseconds) } else { fromStoragePool.append(sample.milliseconds) }
            }
            floor.append(try floorSample(header: header, lines: lines))
            overwriteFloor.append(try overwriteFloorSample(header: header, lines: lines))
            var encodedBytes = 0
            encoding.append(elapsedMilliseconds { encodedBytes = JournalStorage.encodeEachBatch(batches) })
            guard encodedBytes == journalLineBytes else {
                throw HarnessError("encoding the batches gave \(encodedBytes) bytes, not the journal's \(journalLineBytes)")
            }
        }
        return (Figure(samples: ours), Figure(samples: fromStoragePool), Figure(samples: floor), Figure(samples: encoding), Figure(samples: overwriteFloor))
    }

    /// `--time-encode`: `batches` made into their journal lines as appends make them, seven
    /// times, each time printed: the encoding on its own, to profile.
    static func timeEncoding(_ batches: [[BookmarkChange]]) {
        for _ in 0..<7 {
            var bytes = 0
            let elapsed = elapsedMilliseconds { bytes = JournalStorage.encodeEachBatch(batches) }
            print(String(format: "%.2f ms (%d bytes)", elapsed, bytes))
        }
    }

    /// How many batches `append_unsynced_grouped` hands over at once: 3,000 bookmarks.
    static let groupSize = 100

    private func appendSample(_ durability: JournalStorage.Options.Durability, from caller: Caller) async throws -> (milliseconds: Double, directory: URL) {
        let directory = try scratch.directory("journal-\(durability == .always ? "durable" : "unsynced")")
        let options = Self.options(durability)
        let storage = try await JournalStorage.open(directory: directory, options: options)
        let batches = dataset.changeBatches
        let elapsed = try await elapsedMilliseconds {
            switch caller {
            case .cooperativePool:
                for batch in batches { try await storage.append(batch) }
            case .storagePool:
                try await withTaskExecutorPreference(options.ioPool) {
                    for batch in batches { try await storage.append(batch) }
                }
            case .cooperativePoolGrouped:
                for start in stride(from: 0, to: batches.count, by: Self.groupSize) {
                    try await storage.append(contentsOf: Array(batches[start..<min(start + Self.groupSize, batches.count)]))
                }
            }
        }
        try await storage.close()
        return (elapsed, directory)
    }

    private func floorSample(header: [UInt8], lines: [[UInt8]]) throws -> Double {
        let directory = try scratch.directory("fsync-floor")
        defer { scratch.remove(directory) }
        let path = directory.path + "/floor.jsonl"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(call: "open", path: path) }
        defer { close(descriptor) }
        try Self.writeFully(header, to: descriptor, path: path)
        guard fsync(descriptor) == 0 else { throw POSIXFailure(call: "fsync", path: path) }
        return try elapsedMilliseconds {
            for line in lines {
                try Self.writeFully(line, to: descriptor, path: path)
                guard fsync(descriptor) == 0 else { throw POSIXFailure(call: "fsync", path: path) }
            }
        }
    }

    /// How much a file grows at a time in ``overwriteFloorSample(header:lines:)``.
    static let overwriteChunk = 256 << 10

    /// The same lines made durable the other way a log can be written: into space written
    /// (with spaces) and fsynced ahead, a chunk at a time, so that each line is a `pwrite` over
    /// bytes already on disk and an `fdatasync` with no metadata to commit; a chunk's spaces go
    /// out with the line that needs them, under one `fsync`. The floor of the way the journal
    /// writes durable lines since it writes over room (which it makes in a write and fsync of
    /// its own, before the line), beside the floor of appending that the target is set against.
    private func overwriteFloorSample(header: [UInt8], lines: [[UInt8]]) throws -> Double {
        let directory = try scratch.directory("overwrite-floor")
        defer { scratch.remove(directory) }
        let path = directory.path + "/floor.jsonl"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(call: "open", path: path) }
        defer { close(descriptor) }
        try Self.writeFully(header, to: descriptor, path: path)
        guard fsync(descriptor) == 0 else { throw POSIXFailure(call: "fsync", path: path) }
        let spaces = [UInt8](repeating: UInt8(ascii: " "), count: Self.overwriteChunk)
        var position = header.count
        var allocated = header.count
        return try elapsedMilliseconds {
            for line in lines {
                try Self.writeFully(line, to: descriptor, at: position, path: path)
                if position + line.count >= allocated {
                    // One byte of space always follows the last line.
                    while position + line.count >= allocated {
                        try Self.writeFully(spaces, to: descriptor, at: allocated, path: path)
                        allocated += spaces.count
                    }
                    guard fsync(descriptor) == 0 else { throw POSIXFailure(call: "fsync", path: path) }
                } else {
                    guard dataSync(descriptor) == 0 else { throw POSIXFailure(call: "fdatasync", path: path) }
                }
                position += line.count
            }
        }
    }

    private static func writeFully(_ bytes: [UInt8], to descriptor: Int32, at offset: Int, path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let result = pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
                if result < 0 {
                    if errno == EINTR { continue }
                    throw POSIXFailure(call: "pwrite", path: path)
                }
                written += result
            }
        }
    }

    /// `fdatasync` where there is one (Linux); `fsync` elsewhere, as the floor does.
    private func dataSync(_ descriptor: Int32) -> Int32 {
        #if os(Linux)
        fdatasync(descriptor)
        #else
        fsync(descriptor)
        #endif
    }

    private static func writeFully(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw POSIXFailure(call: "write", path: path)
                }
                written += result
            }
        }
    }

    /// A journal of every batch (durability `.none`), untimed: what ``appendUnsynced(from:)`` leaves,
    /// for a run that wants the later items but not that one.
    func writeJournal() async throws -> URL {
        let directory = try scratch.directory("journal-unsynced")
        let storage = try await JournalStorage.open(directory: directory, options: Self.options(.none))
        for batch in dataset.changeBatches { try await storage.append(batch) }
        try await storage.close()
        return directory
    }

    /// A journal that holds every bookmark twice (the data set appended, then appended again as
    /// updates, in batches of 30, never compacted): what open replays when compaction lags.
    func writeUncompactedJournal() async throws -> URL {
        let directory = try scratch.directory("journal-uncompacted")
        let storage = try await JournalStorage.open(directory: directory, options: Self.options(.none))
        for _ in 0..<2 {
            for batch in dataset.changeBatches { try await storage.append(batch) }
        }
        try await storage.close()
        return directory
    }

    /// Compacts the store in `directory` once per sample (the live state written to a temporary
    /// file, fsynced, renamed over the journal, the directory fsynced).
    func compact(directory: URL) async throws -> Figure {
        let store = try await BookmarksIndexStore.open(directory: directory, options: Self.options(.always))
        let figure = try await sampling.measure {
            try await elapsedMilliseconds { try await store.compact() }
        }
        try await store.close()
        return figure
    }

    /// Compacts the store in `directory` once, untimed: what ``compact(directory:)`` leaves.
    func compactOnce(directory: URL) async throws {
        let store = try await BookmarksIndexStore.open(directory: directory, options: Self.options(.always))
        try await store.compact()
        try await store.close()
    }

    /// Opens the store in `directory` and asks for its top 50 tags (what SQLite's figure does),
    /// once per sample; the close after each sample is not timed. With `checkpoints`, open reads
    /// the checkpoint compaction wrote and replays only the journal lines after it; without,
    /// the checkpoint is deleted before each sample (untimed) and none is written, so open reads,
    /// checks and replays the whole journal.
    func openStore(directory: URL, checkpoints: Bool = true) async throws -> Figure {
        var options = Self.options(.always)
        if !checkpoints { options.checkpointMinimumBytes = .max }
        let checkpointPath = directory.appendingPathComponent(JournalStorage.checkpointFileName).path
        return try await sampling.measure {
            if !checkpoints { try? FileManager.default.removeItem(atPath: checkpointPath) }
            var store: BookmarksIndexStore?
            var tags: [ArtworkTagCount] = []
            let elapsed = try await elapsedMilliseconds {
                store = try await BookmarksIndexStore.open(directory: directory, options: options)
                tags = await store?.tagHistogram(in: .public, limit: 50) ?? []
            }
            guard !tags.isEmpty else { throw HarnessError("the histogram is empty after open") }
            try await store?.close()
            return elapsed
        }
    }

    /// The size of the journal in `directory`, in bytes.
    static func journalBytes(in directory: URL) -> Int {
        fileBytes(JournalStorage.journalFileName, in: directory)
    }

    /// The size of the file `name` in `directory`, in bytes; 0 when there is none.
    static func fileBytes(_ name: String, in directory: URL) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }
}

/// A failed POSIX call in the harness itself.
struct POSIXFailure: Error, CustomStringConvertible {
    var call: String
    var path: String
    var code = errno
    var description: String { "\(call) \(path): \(String(cString: strerror(code)))" }
}
