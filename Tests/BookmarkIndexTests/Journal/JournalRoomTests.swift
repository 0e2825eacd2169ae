@_spi(Testing) @testable import BookmarkIndex
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// Durable appends write over room made ahead (spaces past the last line, fsynced a chunk at a
/// time): what an open journal looks like, what a clean close and an open after a crash make
/// of the room, and which lines before the room a crash may have torn.
@Suite("Journal room")
struct JournalRoomTests {
    static let chunk = JournalWriter.roomChunk

    /// Batch `index` (from 0) of the journals these tests make: `size` bookmarks.
    func batch(_ index: Int, size: Int = 3) -> [BookmarkChange] {
        generatedBatch(first: index * size + 1, count: size, order: Int64(-index * size))
    }

    /// Appends batches `indices` to the journal in `directory` (made if missing), without room
    /// (durability `.none`), and closes it; returns the state of batches `0..<indices.upperBound`.
    @discardableResult
    func makeJournal(in directory: TemporaryDirectory, batches indices: Range<Int>, size: Int = 3) async throws -> StateDump {
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(durability: .none))
        for index in indices { try await journal.append(batch(index, size: size)) }
        try await journal.close()
        var state = BookmarkIndexState()
        for index in 0..<indices.upperBound { state.apply(batch(index, size: size)) }
        return StateDump(state)
    }

    /// The line `number` (1 is the header) of `bytes`, without its newline: where it starts and ends.
    func line(_ number: Int, of bytes: [UInt8]) -> Range<Int> {
        let starts = lineStarts(bytes)
        let end = number < starts.count ? starts[number] - 1 : bytes.count - 1
        return starts[number - 1]..<end
    }

    @Test func durableAppendsWriteOverRoomThatACleanCloseCutsOff() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        let batches = [generatedBatch(first: 1, count: 3), generatedBatch(first: 10, count: 2)]
        for batch in batches { try await journal.append(batch) }

        let open = directory.journalBytes()
        let lines = directory.journalLines()
        #expect(open.count == Self.chunk, "room up to the first chunk's end")
        #expect(open[lines.count...].allSatisfy { $0 == UInt8(ascii: " ") })
        #expect(lines.last == 0x0A && lineStarts(lines).count == 3, "the header and two batch lines, then only room")

        try await journal.close()
        #expect(directory.journalBytes() == lines, "closed, the journal ends with its last line")
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(reopened.recovery.isClean)
        var expected = BookmarkIndexState()
        for batch in batches { expected.apply(batch) }
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        try await reopened.close()
    }

    @Test func unsyncedAppendsMakeNoRoom() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(durability: .none))
        try await journal.append(generatedBatch(first: 1, count: 3))
        #expect(directory.journalBytes().last == 0x0A)
        #expect(directory.journalBytes() == directory.journalLines())
        try await journal.close()
    }

    /// A group of batches of about 600 kB, more than a write over room may be.
    static let largeGroup = (0..<40).map { generatedBatch(first: $0 * 30 + 1, count: 30) }

    @Test func aWriteOfMoreThanAChunkIsAppendedAfterTheRoomIsCut() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
        try await journal.append(batch(100))
        let before = directory.journalLines().count
        var logged = fileSystem.operationLog.count
        try await journal.append(contentsOf: Self.largeGroup)
        #expect(directory.journalLines().count - before > Self.chunk)
        #expect(Array(fileSystem.operationLog[logged...]) == [.truncate, .synchronize, .write, .synchronize], "the room cut durably, then one append and its fsync")
        #expect(directory.journalBytes() == directory.journalLines() && directory.journalBytes().last == 0x0A, "no room after it")

        logged = fileSystem.operationLog.count
        try await journal.append(batch(101))
        #expect(Array(fileSystem.operationLog[logged...]) == [.write, .synchronize, .write, .synchronizeData], "room made again for the next batch")
        try await journal.close()
        var expected = BookmarkIndexState()
        for batch in [batch(100)] + Self.largeGroup + [batch(101)] { expected.apply(batch) }
        #expect(try await withJournal(in: directory) { StateDump(try await $0.load()) } == StateDump(expected))
    }

    /// A crash at every step of an append that makes room first, and of a group appended after
    /// the room is cut: the journal opens, with the batches acknowledged and all or none of the
    /// batches being written.
    @Test(arguments: [false, true])
    func aCrashAtEveryStepKeepsAllOrNoneOfTheWrite(powerLoss: Bool) async throws {
        let writes: [(String, [[BookmarkChange]], Bool)] = [
            ("a batch on a journal without room", [batch(1)], false),
            ("a group over a chunk after room", Self.largeGroup, true),
        ]
        for (what, pending, roomFirst) in writes {
            /// A journal holding batch 0, and batch 2 written over room when `roomFirst`.
            func prepared(_ fileSystem: FaultInjectingFileSystem, in directory: TemporaryDirectory) async throws -> JournalStorage {
                try await makeJournal(in: directory, batches: 0..<1)
                let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
                if roomFirst { try await journal.append(batch(2)) }
                return journal
            }
            let counting = TemporaryDirectory()
            defer { counting.remove() }
            let counter = FaultInjectingFileSystem()
            let counted = try await prepared(counter, in: counting)
            let start = counter.mutatingOperations
            try await counted.append(contentsOf: pending)
            let steps = counter.mutatingOperations - start
            try await counted.close()
            #expect(steps == 4, "\(what): \(counter.operationLog.suffix(4))")

            let acknowledged = [batch(0)] + (roomFirst ? [batch(2)] : [])
            for step in 0..<steps {
                // A torn write keeps less than its first line (a prefix of whole lines is a
                // torn write's, as before room, and kept).
                for keep in [0, 100] {
                    let directory = TemporaryDirectory()
                    defer { directory.remove() }
                    let fileSystem = FaultInjectingFileSystem()
                    do {
                        let journal = try await prepared(fileSystem, in: directory)
                        fileSystem.inject(.crash(keepingBytes: keep), at: fileSystem.mutatingOperations + step)
                        await #expect(throws: BookmarkIndexError.self) { try await journal.append(contentsOf: pending) }
                    }
                    fileSystem.restart(losingUnsyncedData: powerLoss)
                    let label = "\(what): crash at step \(step) keeping \(keep), power loss \(powerLoss)"
                    let recovered = try await withJournal(in: directory) { StateDump(try await $0.load()) }
                    func state(_ batches: [[BookmarkChange]]) -> StateDump {
                        var state = BookmarkIndexState()
                        for batch in batches { state.apply(batch) }
                        return StateDump(state)
                    }
                    #expect(recovered == state(acknowledged) || recovered == state(acknowledged + pending), "\(label)")
                    if powerLoss { #expect(recovered == state(acknowledged), "\(label)") }
                }
            }
        }
    }

    @Test func roomLeftByAProcessThatDiedIsCutAtOpenAndIsNoRepair() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let expected = try await makeJournal(in: directory, batches: 0..<3)
        let lines = directory.journalBytes()
        // Spaces, and zeros where a file system lost some of them.
        let spaces = { [UInt8](repeating: UInt8(ascii: " "), count: $0) }
        let zeros = { [UInt8](repeating: 0, count: $0) }
        for room in [spaces(5_000), spaces(10), zeros(4_096) + spaces(100), spaces(4_096) + zeros(100)] {
            directory.writeJournal(lines + room)
            let report = try await JournalStorage.verify(directory: directory.url)
            #expect(report.isHealthy && report.tornTail == nil, "\(report)")
            let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
            #expect(journal.recovery.isClean)
            #expect(StateDump(try await journal.load()) == expected)
            #expect(directory.journalBytes() == lines, "the room is cut before the journal is written")
            try await journal.append(generatedBatch(first: 500, count: 1))
            try await journal.close()
            directory.writeJournal(lines)
        }
    }

    /// A crash after a batch was written over room and before its `fdatasync`: a process that
    /// dies leaves the line in the page cache, a power loss leaves the room as it was; both
    /// journals open without repair.
    @Test func aPowerLossBeforeTheDataSyncLeavesTheRoomAsItWas() async throws {
        for powerLoss in [false, true] {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            let synced: [UInt8]
            do {
                // The crashed journal goes out of scope, as a dead process's lock is released.
                let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
                try await journal.append(batch(0))
                synced = directory.journalBytes()
                fileSystem.inject(.crash(keepingBytes: 0), atNext: .synchronizeData)
                await #expect(throws: BookmarkIndexError.self) { try await journal.append(batch(1)) }
            }
            fileSystem.restart(losingUnsyncedData: powerLoss)
            #expect((directory.journalBytes() == synced) == powerLoss, "power loss \(powerLoss)")
            let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
            #expect(reopened.recovery.isClean, "power loss \(powerLoss)")
            var expected = BookmarkIndexState()
            for index in 0..<(powerLoss ? 1 : 2) { expected.apply(batch(index)) }
            #expect(StateDump(try await reopened.load()) == StateDump(expected), "power loss \(powerLoss)")
            try await reopened.close()
        }
    }

    /// A batch whose fdatasync fails is cut back with the room; a power loss before that cut is
    /// fsynced undoes it: the room comes back, the failed line does not (it was never synced),
    /// and the journal opens with the batches acknowledged.
    @Test func aPowerLossAfterACutBackBringsBackOnlyRoom() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
            try await journal.append(batch(0))
            fileSystem.inject(.fail, atNext: .synchronizeData)
            fileSystem.inject(.crash(keepingBytes: 0), atNext: .synchronize)
            await #expect(throws: BookmarkIndexError.self) { try await journal.append(batch(1)) }
        }
        let cut = directory.journalBytes()
        #expect(cut.last == 0x0A, "cut back to the last acknowledged line")
        fileSystem.restart(losingUnsyncedData: true)
        let restored = directory.journalBytes()
        #expect(restored.count == Self.chunk && restored[..<cut.count] == cut[...], "the cut undone")
        #expect(restored[cut.count...].allSatisfy { $0 == UInt8(ascii: " ") }, "room, not the failed line")
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(reopened.recovery.isClean)
        var expected = BookmarkIndexState()
        expected.apply(batch(0))
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        try await reopened.close()
    }

    /// A crash during a write over room can leave any of its pages: here the next two batch
    /// lines, with a page's worth of one or the other still spaces, and the room after them.
    @Test func theLinesOfOneInterruptedWriteBeforeTheRoomAreATornTail() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let twoBatches = try await makeJournal(in: directory, batches: 0..<2)
        let acknowledged = directory.journalBytes()
        // Two more batches, as one write puts them after the acknowledged lines.
        let threeBatches = try await makeJournal(in: directory, batches: 2..<3)
        try await makeJournal(in: directory, batches: 3..<4)
        let complete = directory.journalBytes()
        let write = Array(complete[acknowledged.count...])
        let first = line(4, of: complete), second = line(5, of: complete)
        let room = [UInt8](repeating: UInt8(ascii: " "), count: 3_000)
        let lost: [(String, Range<Int>)] = [
            ("the middle of the first line", (first.lowerBound + 20)..<(first.lowerBound + 60)),
            ("the newline of the first line", first.upperBound..<(first.upperBound + 1)),
            ("the start of the second line", second.lowerBound..<(second.lowerBound + 30)),
            ("the end of the second line", (second.upperBound - 10)..<(second.upperBound + 1)),
        ]
        for (what, range) in lost {
            var torn = write
            for index in range { torn[index - acknowledged.count] = UInt8(ascii: " ") }
            directory.writeJournal(acknowledged + torn + room)
            let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
            let inFirst = range.lowerBound <= first.upperBound
            #expect(StateDump(try await journal.load()) == (inFirst ? twoBatches : threeBatches), "lost \(what)")
            let tail = try #require(journal.recovery.truncatedTail, "lost \(what)")
            let firstBroken = inFirst ? first.lowerBound : second.lowerBound
            #expect(tail.offset == firstBroken, "lost \(what)")
            #expect(directory.journalBytes() == Array(complete[..<firstBroken]), "lost \(what): cut where the write broke")
            try await journal.close()

            // Without room after them, the same lines are what they would be in any journal:
            // an unreadable line before the last one is damage.
            directory.writeJournal(acknowledged + torn)
            if range.upperBound < first.upperBound {
                let error = await #expect(throws: BookmarkIndexError.self) {
                    try await JournalStorage.open(directory: directory.url, options: journalOptions())
                }
                #expect(error?.code == .corrupt, "lost \(what)")
            }
        }
    }

    @Test func damageFartherFromTheRoomThanOneWriteIsStillDamage() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await makeJournal(in: directory, batches: 0..<800, size: 1)
        var bytes = directory.journalBytes()
        let damaged = line(3, of: bytes)
        #expect(bytes.count - damaged.lowerBound > Self.chunk, "the damaged line is more than a chunk before the end")
        bytes[damaged.lowerBound + 30] ^= 0x01
        directory.writeJournal(bytes + [UInt8](repeating: UInt8(ascii: " "), count: 1_000))
        let error = await #expect(throws: BookmarkIndexError.self) {
            try await JournalStorage.open(directory: directory.url, options: journalOptions())
        }
        #expect(error?.code == .corrupt)
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.damage.map(\.line) == [3] && report.tornTail == nil, "\(report)")
    }

    /// Fewer spaces than the least room a write leaves, after other bytes, are a line cut short
    /// in its own spaces (a title's): the journal is read as one without room.
    @Test func aTornLineEndingInSpacesIsNoRoom() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await makeJournal(in: directory, batches: 0..<4)
        var bytes = directory.journalBytes()
        let damaged = line(3, of: bytes)
        bytes[damaged.lowerBound + 30] ^= 0x01
        let last = line(5, of: bytes)
        let torn = Array(bytes[..<(last.lowerBound + 40)])
        for (spaces, refused) in [(10, true), (JournalWriter.minimumRoom, false)] {
            directory.writeJournal(torn + [UInt8](repeating: UInt8(ascii: " "), count: spaces))
            do {
                let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
                #expect(!refused, "\(spaces) spaces")
                #expect(journal.recovery.truncatedTail?.offset == damaged.lowerBound, "\(spaces) spaces: cut from the first bad line")
                try await journal.close()
            } catch let error as BookmarkIndexError {
                #expect(refused && error.code == .corrupt, "\(spaces) spaces: \(error)")
            }
        }
    }

    @Test func aCompactionWhileThereIsRoomLeavesNone() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        var state = BookmarkIndexState()
        for index in 0..<3 {
            try await journal.append(batch(index))
            state.apply(batch(index))
        }
        #expect(directory.journalBytes().count > directory.journalLines().count)
        try await journal.beginCompaction(to: state)()
        #expect(directory.journalBytes() == directory.journalLines(), "the compacted file has no room")
        try await journal.append(batch(3))
        state.apply(batch(3))
        #expect(directory.journalBytes().count > directory.journalLines().count, "room again")
        try await journal.close()
        #expect(directory.journalBytes() == directory.journalLines())
        #expect(try await withJournal(in: directory) { StateDump(try await $0.load()) } == StateDump(state))
    }

    /// A run of bad lines longer than one write over room, then a line longer than that and
    /// room: each line is let go once (held lines were fed again, one run at a time, before).
    @Test(.hangLimit) func aLongRunOfBadLinesBeforeTheRoomIsDamageFoundInOnePass() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await makeJournal(in: directory, batches: 0..<1)
        let header = directory.journalBytes()
        let longLine = [UInt8](repeating: UInt8(ascii: "x"), count: JournalWriter.roomChunk + 10) + [0x0A]
        let blankLines = [UInt8](repeating: 0x0A, count: JournalWriter.roomChunk + 1_000)
        directory.writeJournal(header + blankLines + longLine + [UInt8](repeating: UInt8(ascii: " "), count: JournalWriter.minimumRoom))
        let report = try await JournalStorage.verify(directory: directory.url)
        let firstBlank = lineStarts(header).count + 1
        #expect(report.damage.first?.line == firstBlank, "the first blank line is damage")
        #expect(report.tornTail?.offset == header.count + blankLines.count, "the long last line is the torn tail")
    }
}
