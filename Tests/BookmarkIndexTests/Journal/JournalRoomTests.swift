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

    @Test func aWriteOfMoreThanAChunkGoesInPiecesOfWholeLines() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
        // About 600 kB of lines of 30 bookmarks each, then one line of about 400 kB.
        let group = (0..<40).map { generatedBatch(first: $0 * 30 + 1, count: 30) }
        let logged = fileSystem.operationLog.count
        try await journal.append(contentsOf: group)
        let syncs = fileSystem.operationLog.dropFirst(logged).filter { $0 == .synchronizeData }.count
        let written = directory.journalLines().count
        #expect(syncs >= (written - 1) / Self.chunk + 1 && syncs <= written / (Self.chunk / 2) + 1, "\(syncs) pieces for \(written) bytes")

        let long = generatedBatch(first: 10_000, count: 800)
        let before = fileSystem.operationLog.count
        try await journal.append(long)
        let lineLength = directory.journalLines().count - written
        #expect(lineLength > Self.chunk)
        #expect(fileSystem.operationLog.dropFirst(before).filter { $0 == .synchronizeData }.count == 1, "a longer line is written alone, whole")
        try await journal.close()
        var expected = BookmarkIndexState()
        for batch in group + [long] { expected.apply(batch) }
        #expect(try await withJournal(in: directory) { StateDump(try await $0.load()) } == StateDump(expected))
    }

    @Test func roomLeftByAProcessThatDiedIsCutAtOpenAndIsNoRepair() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let expected = try await makeJournal(in: directory, batches: 0..<3)
        let lines = directory.journalBytes()
        // Spaces, and zeros where a file system lost some of them.
        for room in [[UInt8](repeating: UInt8(ascii: " "), count: 5_000), [UInt8](repeating: 0, count: 4_096) + [UInt8](repeating: UInt8(ascii: " "), count: 100)] {
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
}
