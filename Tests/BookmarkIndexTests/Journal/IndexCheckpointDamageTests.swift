@_spi(Testing) @testable import BookmarkIndex
import BookmarkJSON
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Synchronization
import Testing

// The checkpoint forged, damaged, cut short with its journal, rewritten while verify reads
// it, or caught by a crash mid-compaction: never trusted, never fatal.
extension IndexCheckpointTests {
    /// Rewrites the checkpoint in `directory` with `edit` applied to its bytes, then every
    /// section's checksum and the header's recomputed: a well-formed file with made-up values,
    /// as a bug, or someone, might write.
    func forgeCheckpoint(in directory: TemporaryDirectory, _ edit: (inout [UInt8], _ sectionStart: (Int) -> Int) -> Void) throws {
        let url = URL(fileURLWithPath: checkpointPath(directory))
        var bytes = try [UInt8](Data(contentsOf: url))
        let fixed = 80, count = 20
        func int64(at offset: Int) -> Int { Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) }) }
        let sizes = (0..<count).map { int64(at: fixed + 8 * $0) }
        let headerSize = fixed + 16 * count + 8
        func sectionStart(_ index: Int) -> Int { headerSize + sizes[..<index].reduce(0, +) }
        edit(&bytes, sectionStart)
        let newSizes = (0..<count).map { int64(at: fixed + 8 * $0) }
        for index in 0..<count {
            let start = headerSize + newSizes[..<index].reduce(0, +)
            let end = min(bytes.count, start + max(0, newSizes[index]))
            let hash = start <= end ? bytes[start..<end].withUnsafeBytes { XXH64.hash($0) } : 0
            withUnsafeBytes(of: hash) { bytes.replaceSubrange(fixed + 8 * count + 8 * index..<fixed + 8 * count + 8 * index + 8, with: $0) }
        }
        let headerHash = bytes[..<(headerSize - 8)].withUnsafeBytes { XXH64.hash($0) }
        withUnsafeBytes(of: headerHash) { bytes.replaceSubrange(headerSize - 8..<headerSize, with: $0) }
        try Data(bytes).write(to: url)
    }

    /// A checkpoint whose checksums all pass but whose numbers are made up is refused (or, when
    /// it does not fit the journal after it, dropped for the journal read whole): never a trap,
    /// never a healthy journal called corrupt, never a wrong next batch number.
    @Test func aForgedCheckpointIsNeverFatalAndNeverTrusted() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let model = try await compactedJournal(in: directory, seed: 21, count: 80)
        let good = try Data(contentsOf: URL(fileURLWithPath: checkpointPath(directory)))
        let goodJournal = directory.journalBytes()
        func setInt64(_ value: Int64, at offset: Int) -> (inout [UInt8], (Int) -> Int) -> Void {
            { bytes, _ in withUnsafeBytes(of: value) { bytes.replaceSubrange(offset..<offset + 8, with: $0) } }
        }
        func adjust(_ offset: Int, by delta: Int64) -> (inout [UInt8], (Int) -> Int) -> Void {
            { bytes, _ in
                let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) } + delta
                withUnsafeBytes(of: value) { bytes.replaceSubrange(offset..<offset + 8, with: $0) }
            }
        }
        let forgeries: [(String, (inout [UInt8], (Int) -> Int) -> Void)] = [
            ("length Int64.min", setInt64(.min, at: 32)),
            ("lines Int64.max", setInt64(.max, at: 40)),
            ("last batch Int64.max", setInt64(.max, at: 48)),
            ("last line offset past the end", setInt64(.max, at: 56)),
            ("lines and last batch one more", { bytes, start in adjust(40, by: 1)(&bytes, start); adjust(48, by: 1)(&bytes, start) }),
            ("lines and last batch one fewer", { bytes, start in adjust(40, by: -1)(&bytes, start); adjust(48, by: -1)(&bytes, start) }),
            ("last line offset one later", adjust(56, by: 1)),
            ("a section 2^45 bytes long", setInt64(1 << 45, at: 80)),
            ("a negative section size", setInt64(-8, at: 80 + 8 * 3)),
            ("garbage text Int64.max", { bytes, start in setInt64(.max, at: start(2))(&bytes, start) }),
            ("next stamp 0", { bytes, start in setInt64(0, at: start(2) + 16)(&bytes, start) }),
        ]
        for (what, forge) in forgeries {
            try Data(good).write(to: URL(fileURLWithPath: checkpointPath(directory)))
            try forgeCheckpoint(in: directory, forge)
            let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
            #expect(StateDump(try await journal.load()) == StateDump(model), "\(what)")
            #expect(journal.recovery.checkpointNotUsed != nil, "\(what)")
            // The next batch gets the number after the journal's last: the journal stays whole.
            let extra = generatedBatch(first: 7_000, count: 1)
            try await journal.append(extra)
            try await journal.close()
            let report = try await JournalStorage.verify(directory: directory.url)
            #expect(report.damage.isEmpty && report.isHealthy, "\(what): \(report.damage)")
            directory.writeJournal(goodJournal)
        }
    }

    /// Verify reads the journal twice (whole, and after the checkpoint): a line a writer appends
    /// between the two must not make the checkpoint look wrong.
    @Test func verifyIgnoresLinesAppendedWhileItRuns() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var model = BookmarkIndexState()
        let writer = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
        for batch in randomBatches(seed: 22, count: 40) { try await writer.append(batch); model.apply(batch) }
        try await writer.beginCompaction(to: model)()
        let opens = Mutex(0)
        let racing = ReadCountingFileSystem { path in
            guard path.hasSuffix(JournalStorage.journalFileName) else { return }
            // The journal's second opening for reading is verify's second pass (the first reads
            // the header and every line through one handle). The append is the journal's
            // synchronous one: this runs inside verify's file call, on a pool thread.
            if opens.withLock({ $0 += 1; return $0 }) == 2 { try? writer.appendNow(generatedBatch(first: 8_000, count: 2)) }
        }
        let report = try await JournalStorage.verify(directory: directory.url, fileSystem: racing)
        #expect(opens.withLock { $0 } >= 2)
        #expect(report.checkpoint?.agreesWithJournal == true)
        #expect(report.isHealthy)
        try await writer.close()
    }

    /// A checkpoint rewritten while verify runs (a writer appended enough and reopened) covers
    /// lines verify did not read: it is not compared, rather than called wrong.
    @Test func verifyDoesNotCompareACheckpointWrittenWhileItRuns() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = checkpointOptions()
        options.checkpointMinimumBytes = 1_024
        _ = try await compactedJournal(in: directory, seed: 23, count: 40, options: options)
        let opens = Mutex(0)
        let batches = randomBatches(seed: 24, count: 60, firstStep: 40)
        let racing = ReadCountingFileSystem { [options] path in
            guard path.hasSuffix(JournalStorage.journalFileName), opens.withLock({ $0 += 1; return $0 }) == 2 else { return }
            // Between verify's two passes: many batches, then an open that refreshes the checkpoint.
            // On the thread verify reads on, which may block: the journal's synchronous calls.
            guard let writer = try? JournalStorage(opening: directory.url, options: options) else { return }
            for batch in batches { try? writer.appendNow(batch) }
            try? writer.closeNow()
            try? JournalStorage(opening: directory.url, options: options).closeNow()
        }
        let report = try await JournalStorage.verify(directory: directory.url, fileSystem: racing)
        let rewritten = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)).coverage
        #expect(rewritten.length > report.bytes, "the checkpoint was rewritten to cover the new lines")
        #expect(report.checkpoint?.agreesWithJournal == true)
        #expect(report.isHealthy)
    }

    /// Flipped bytes anywhere, cuts at any length, bytes appended: never trusted, never fatal.
    @Test func aDamagedCheckpointIsNotUsedAndTheJournalIsReadWhole() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let model = try await compactedJournal(in: directory, seed: 8, count: 30)
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: checkpointPath(directory))))
        var damaged: [(String, [UInt8])] = []
        // Every byte of the header and section table, then bytes spread over the sections.
        for offset in Array(0..<400) + Array(stride(from: 400, to: good.count, by: max(1, good.count / 300))) {
            var bytes = good
            bytes[offset] ^= 0x20
            damaged.append(("byte \(offset) flipped", bytes))
        }
        for length in [0, 7, 100, good.count / 2, good.count - 1] {
            damaged.append(("cut to \(length) bytes", Array(good[..<length])))
        }
        damaged.append(("a byte appended", good + [0]))

        let expected = StateDump(model)
        let journalBytes = directory.journalBytes()
        let header = try JournalReading.readHeader(Array(journalBytes[..<journalBytes.firstIndex(of: 0x0A)!]), path: directory.journalPath)
        let fileSystem = PosixFileSystem()
        for (index, (what, bytes)) in damaged.enumerated() {
            let url = URL(fileURLWithPath: checkpointPath(directory))
            try Data(bytes).write(to: url)
            // What an open decides of the checkpoint, for every damage: not to use it.
            let file = try #require(try fileSystem.openForReading(atPath: directory.journalPath))
            let lookup = CheckpointPolicy.usableCheckpoint(directory: directory.url.path, header: header, journal: file, fileSystem: fileSystem, pool: .shared)
            try fileSystem.close(file)
            if case .usable = lookup { Issue.record("\(what): the damaged checkpoint was used") }
            // The open itself, which then reads the journal whole, for every fourth damage and
            // the last ones (the cuts and the byte appended); verify, which reads the journal
            // and the checkpoint again, for every eighth: each open reads the whole journal, and
            // opening for all 700 damages made this the suite's longest test.
            guard index % 4 == 0 || index >= damaged.count - 6 else { continue }
            // A reader leaves the damaged checkpoint in place for verify.
            let journal = try await JournalReader.open(directory: directory.url, options: checkpointOptions())
            #expect(StateDump(try await journal.load()) == expected, "\(what)")
            #expect(journal.recovery.checkpointNotUsed != nil, "\(what)")
            guard index % 8 == 0 || index >= damaged.count - 6 else { continue }
            let report = try await JournalStorage.verify(directory: directory.url)
            #expect(report.checkpoint?.notUsedBecause != nil, "\(what)")
            #expect(report.isHealthy, "\(what): a checkpoint that is not used is harmless")
        }
    }

    @Test func aJournalCutShorterThanItsCheckpointIsReadWhole() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var states: [BookmarkIndexState] = []
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
            var model = BookmarkIndexState()
            for batch in randomBatches(seed: 9, count: 30) { try await journal.append(batch); model.apply(batch) }
            try await journal.beginCompaction(to: model)()
            states.append(model)
            try await journal.close()
        }
        // The compacted journal loses its last line's end: it is a torn tail now, and the
        // checkpoint, which covers that line, must not stand in for it.
        let bytes = directory.journalBytes()
        directory.writeJournal(Array(bytes.dropLast(5)))
        let expected = try await replayed(Array(bytes.dropLast(5)))

        let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
        #expect(journal.recovery.checkpointNotUsed?.contains("does not end its lines where the checkpoint says") == true)
        #expect(journal.recovery.truncatedTail != nil)
        #expect(StateDump(try await journal.load()) == StateDump(expected))
        #expect(StateDump(expected) != StateDump(states[0]), "the cut removed a batch")
        try await journal.close()
    }

    /// What opening `bytes` as a journal, with no checkpoint, gives.
    func replayed(_ bytes: [UInt8]) async throws -> BookmarkIndexState {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        directory.writeJournal(bytes)
        return try await JournalReader.open(directory: directory.url, options: journalOptions()).load()
    }

    /// A crash at any step of a compaction that writes a checkpoint, with or without losing what
    /// was not fsynced: the next open, and the one after, give the compacted index.
    @Test(arguments: [false, true])
    func crashAtEveryStepOfACompactionWithACheckpoint(powerLoss: Bool) async throws {
        var model = BookmarkIndexState()
        let batches = randomBatches(seed: 12, count: 40)
        for batch in batches { model.apply(batch) }

        func openWithHistory(_ directory: TemporaryDirectory, _ fileSystem: FaultInjectingFileSystem) async throws -> JournalStorage {
            // Acknowledged batches are fsynced: a power loss may only take what a crash cut short.
            let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions(durability: .always, fileSystem: fileSystem))
            for batch in batches { try await journal.append(batch) }
            return journal
        }
        let steps: Int
        do {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            let journal = try await openWithHistory(directory, fileSystem)
            let start = fileSystem.mutatingOperations
            try await journal.beginCompaction(to: model)()
            steps = fileSystem.mutatingOperations - start
            #expect(fileSystem.operationLog.suffix(steps).last == .rename, "the checkpoint's rename ends a compaction")
        }
        for step in 0..<steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            do {
                let journal = try await openWithHistory(directory, fileSystem)
                fileSystem.inject(.crash(keepingBytes: 100), at: fileSystem.mutatingOperations + step)
                try? await journal.beginCompaction(to: model)()
            }
            fileSystem.restart(losingUnsyncedData: powerLoss)
            for open in 1...2 {
                let journal = try await JournalStorage.open(directory: directory.url, options: checkpointOptions())
                #expect(StateDump(try await journal.load()) == StateDump(model), "crash at step \(step), open \(open), power loss \(powerLoss)")
                try await journal.close()
            }
        }
    }

    @Test func verifyFindsACheckpointThatDisagreesWithItsJournal() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let model = try await compactedJournal(in: directory, seed: 13, count: 40)
        #expect(try await JournalStorage.verify(directory: directory.url).checkpoint?.agreesWithJournal == true)

        // A well-formed checkpoint of a different index that claims the same journal: only a
        // bug could write one, and verify is what would catch it.
        let coverage = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)).coverage
        var other = model
        other.apply(generatedBatch(first: 5_000, count: 1))
        try IndexCheckpoint.write(other, coverage: coverage, directory: directory.url.path, fileSystem: PosixFileSystem())
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.checkpoint?.agreesWithJournal == false)
        #expect(report.checkpoint?.notUsedBecause == nil)
        #expect(!report.isHealthy)
    }

    /// The checks a checkpoint's lists pass before they are used: each inconsistency that would
    /// otherwise trap (or mislead) a later read is refused.
    @Test func inconsistentListPartsAreRefused() async throws {
        var state = BookmarkIndexState()
        for batch in randomBatches(seed: 14, count: 60) { state.apply(batch) }
        // Removals last, so the list has free slots.
        state.apply(state.allBookmarks(in: .public).prefix(3).map { BookmarkChange.remove($0.key) })
        let good = state.lists[0].parts
        let refCount = state.tags.refs.count
        func build(_ parts: ListIndex.Parts) throws -> ListIndex {
            let rows = try ListIndex.indexRows(parts.slots, textCount: parts.text.count, tagRefCount: parts.tagRefs.count)
            try ListIndex.checkSlots(parts)
            try ListIndex.checkOrder(parts.order, slots: parts.slots)
            let checked = try ListIndex.checkedTagIndex(parts, tags: state.tags)
            return try ListIndex(parts: parts, rows: rows, tagIndex: checked)
        }
        _ = try build(good)

        let live = try #require(good.slots.firstIndex { $0.isLive })
        let tagged = try #require(good.slots.firstIndex { $0.isLive && $0.tagCount > 0 })
        let tag = try #require(good.postingCounts.firstIndex { $0 > 1 })
        var cases: [(String, ListIndex.Parts)] = []
        var parts = good
        parts.slots[live].textStart = good.text.count
        cases.append(("text out of bounds", parts))
        parts = good
        parts.slots[tagged].tagStart = good.tagRefs.count
        cases.append(("tags out of bounds", parts))
        parts = good
        let other = try #require(good.slots.indices.last { $0 != live && good.slots[$0].isLive })
        parts.slots[other].illustID = good.slots[live].illustID
        cases.append(("two rows of one illust", parts))
        parts = good
        parts.tagRefs[0] = TagRefID(refCount)
        cases.append(("an unknown tag", parts))
        parts = good
        parts.order.append(parts.order[0])
        cases.append(("a row listed twice", parts))
        parts = good
        parts.order.swapAt(0, parts.order.count - 1)
        cases.append(("order not newest first", parts))
        parts = good
        parts.order.removeLast()
        cases.append(("a row missing from the order", parts))
        parts = good
        parts.postingCounts[tag] += 1
        cases.append(("postings longer than their count", parts))
        parts = good
        let start = good.postingCounts[..<tag].reduce(0) { $0 + Int($1) }
        parts.postingSlots.swapAt(start, start + 1)
        cases.append(("postings out of order", parts))
        parts = good
        parts.freeSlots.append(Int32(live))
        cases.append(("a live row as a free slot", parts))
        parts = good
        parts.slots[live].flags = 0
        cases.append(("a dropped row still in postings or order", parts))
        parts = good
        parts.tagCounts = parts.tagCounts.map { _ in 0 }
        parts.postingCounts = parts.postingCounts.map { _ in 0 }
        parts.postingSlots = []
        cases.append(("counts and postings emptied while rows carry tags", parts))
        parts = good
        let free = try #require(good.freeSlots.first)
        parts.freeSlots.append(free)
        cases.append(("a free slot listed twice", parts))
        parts = good
        parts.nextStamp = 0
        cases.append(("order stamps at or above the next one", parts))
        parts = good
        parts.slots[live].vanishReason = UInt8(VanishReason.allCases.count + 1)
        cases.append(("a vanish reason the index does not write", parts))
        parts = good
        let visible = try #require(good.slots.firstIndex { $0.isLive && $0.isVisible })
        parts.slots[visible].flags |= ListIndex.Row.hasVanishedAtFlag
        cases.append(("a visible row with a vanish date", parts))
        // Postings of the right length and order, naming a row that does not carry the tag.
        parts = good
        let postingStart = good.postingCounts[..<tag].reduce(0) { $0 + Int($1) }
        let tagPostings = Array(good.postingSlots[postingStart..<postingStart + Int(good.postingCounts[tag])])
        let stranger = try #require(good.slots.indices.first { slot in
            good.slots[slot].isLive && !tagPostings.contains(Int32(slot))
        })
        let replaced = (tagPostings.dropFirst() + [Int32(stranger)]).sorted()
        parts.postingSlots.replaceSubrange(postingStart..<postingStart + replaced.count, with: replaced)
        cases.append(("postings naming a row without the tag", parts))

        for (what, parts) in cases {
            #expect(throws: ListIndex.InconsistentParts.self, "\(what)") { try build(parts) }
        }
    }
}
