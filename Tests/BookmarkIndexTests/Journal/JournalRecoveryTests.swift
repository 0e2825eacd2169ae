@_spi(Testing) @testable import BookmarkIndex
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// Torn tails, damaged lines and salvage, the way SQLite and LevelDB test their logs.
@Suite("Journal recovery")
struct JournalRecoveryTests {
    /// A journal of a header and `batches` batches, with the state each prefix of batches gives.
    func makeJournal(in directory: TemporaryDirectory, batches: Int) async throws -> [StateDump] {
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(durability: .none))
        var state = BookmarkIndexState()
        var prefixes = [StateDump(state)]
        for index in 0..<batches {
            let batch = generatedBatch(first: index * 10, count: 3, restrict: index % 2 == 0 ? .public : .private, order: Int64(-index * 10))
                + [.remove(BookmarkKey(illustID: index * 10 - 9, restrict: .public))]
            try await journal.append(batch)
            state.apply(batch)
            prefixes.append(StateDump(state))
        }
        try await journal.close()
        return prefixes
    }

    @Test func tornLastLineIsCutAtEveryByteOffset() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let prefixes = try await makeJournal(in: directory, batches: 4)
        let original = directory.journalBytes()
        let lastLine = lineStarts(original).last!
        // Every cut inside the last line, including a cut just before its newline.
        for cut in lastLine..<original.count {
            directory.writeJournal(Array(original[..<cut]))
            let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
            #expect(StateDump(try await journal.load()) == prefixes[3], "cut at \(cut)")
            if cut > lastLine {
                let tail = try #require(journal.recovery.truncatedTail, "cut at \(cut)")
                #expect(tail.line == 5)
                #expect(tail.offset == lastLine)
                #expect(tail.bytes == cut - lastLine)
            } else {
                #expect(journal.recovery.isClean)
            }
            #expect(directory.journalFingerprint() == fingerprint(Array(original[..<lastLine])), "the torn tail is cut off on disk")
            // The repaired journal takes new batches after the cut.
            try await journal.append(generatedBatch(first: 9_000, count: 1))
            try await journal.close()
            let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
            #expect(try await reopened.load().contains(BookmarkKey(illustID: 9_000, restrict: .public)))
            #expect(reopened.recovery.isClean)
            try await reopened.close()
        }
    }

    @Test func checksumFailingLastLineIsCut() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let prefixes = try await makeJournal(in: directory, batches: 3)
        var bytes = directory.journalBytes()
        let lastLine = lineStarts(bytes).last!
        bytes[lastLine + 40] ^= 0x01
        directory.writeJournal(bytes)
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await journal.load()) == prefixes[2])
        #expect(journal.recovery.truncatedTail?.reason.contains("checksum mismatch") == true)
    }

    @Test func flippedBitInAMiddleLineRefusesToOpenWithLineAndOffset() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try await makeJournal(in: directory, batches: 5)
        var bytes = directory.journalBytes()
        let starts = lineStarts(bytes)
        bytes[starts[2] + 60] ^= 0x04  // line 3: the second batch
        directory.writeJournal(bytes)

        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: journalOptions()) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("line 3 at byte offset \(starts[2])"))
        #expect(directory.journalFingerprint() == fingerprint(bytes), "a refused open changes nothing")

        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(!report.isHealthy)
        #expect(report.damage.map(\.line) == [3])
        #expect(report.batches == 4)
    }

    @Test func salvageKeepsExactlyTheOtherBatchesAndMovesTheFileAside() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try await makeJournal(in: directory, batches: 5)
        var bytes = directory.journalBytes()
        let starts = lineStarts(bytes)
        bytes[starts[2] + 60] ^= 0x04
        directory.writeJournal(bytes)

        // What the other batches give, applied by hand from the undamaged lines.
        var expected = BookmarkIndexState()
        for (index, start) in starts.enumerated() where index >= 1 && index != 2 {
            let end = index + 1 < starts.count ? starts[index + 1] - 1 : bytes.count - 1
            let line = Array(bytes[start..<end])
            guard case .batch(_, let changes) = try line.withUnsafeBytes({ try JournalCodec.decodeLine($0) }) else {
                Issue.record("line \(index + 1) is not a batch")
                return
            }
            expected.apply(changes)
        }

        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(salvage: true))
        #expect(StateDump(try await journal.load()) == StateDump(expected))
        #expect(journal.recovery.droppedDamage.map(\.line) == [3])
        let aside = try #require(journal.recovery.damagedFileMovedTo)
        #expect(fingerprint(try PosixFileSystem().contents(atPath: aside) ?? []) == fingerprint(bytes), "the damaged file is kept, byte for byte")
        try await journal.close()
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        #expect(reopened.recovery.isClean)
    }

    /// Dropped batches may have held rows or removals of either list: after a salvage the next
    /// sync of each list is a full walk, not a delta trusting what is left.
    @Test func salvageClearsTheSyncTimesSoTheNextSyncsAreFullWalks() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
            for index in 0..<4 { try await journal.append(generatedBatch(first: index * 10, count: 3)) }
            try await journal.append([.setMetadata(BookmarkIndexMetadata(
                lastFullSync: Date(timeIntervalSinceReferenceDate: 5),
                syncState: try VersionedPayload(version: 2, json: Data(#"{"unbookmarked":[[77,6]]}"#.utf8))
            ), for: .public)])
            try await journal.close()
        }
        var bytes = directory.journalBytes()
        bytes[lineStarts(bytes)[2] + 60] ^= 0x04
        directory.writeJournal(bytes)
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(salvage: true))
        let state = try await journal.load()
        #expect(state.count(in: .public) == 9)
        // The sync times go; the engine's record stays, marked stale (its cursor may no longer
        // hold; what the app recorded, a tombstone, still does).
        #expect(state.metadata(for: .public) == BookmarkIndexMetadata(
            syncState: try VersionedPayload(version: 2, json: Data(#"{"unbookmarked":[[77,6]]}"#.utf8), isStale: true)
        ))
        #expect(state.metadata(for: .private) == BookmarkIndexMetadata())
    }

    @Test func sequenceGapIsCorruption() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try await makeJournal(in: directory, batches: 4)
        let bytes = directory.journalBytes()
        let starts = lineStarts(bytes)
        // Drop line 3 entirely: lines stay valid, but seq jumps from 1 to 3.
        directory.writeJournal(Array(bytes[..<starts[2]] + bytes[starts[3]...]))
        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: journalOptions()) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("sequence gap: expected batch 2, found 3"))
        #expect(error.message.contains("line 3"))
    }

    @Test func damagedHeaderIsCorruption() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try await makeJournal(in: directory, batches: 2)
        var bytes = directory.journalBytes()
        bytes[30] ^= 0x02
        directory.writeJournal(bytes)
        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: journalOptions()) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("line 1, byte offset 0"))
        #expect(error.message.contains("salvage"))
        #expect(directory.journalBytes() == bytes, "nothing was changed")
    }

    /// Damage to the header alone loses no batch: salvage reads them as this library's schema,
    /// writes a clean journal and keeps the damaged one aside.
    @Test(arguments: [30, 5, 0])
    func salvageKeepsEveryBatchOfAJournalWhoseHeaderIsDamaged(flippedByte: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let prefixes = try await makeJournal(in: directory, batches: 3)
        var bytes = directory.journalBytes()
        bytes[flippedByte] ^= 0x02
        directory.writeJournal(bytes)

        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(salvage: true))
        var expected = prefixes[3]
        expected.metadata = Restrict.allCases.map { _ in BookmarkIndexMetadata() }
        #expect(StateDump(try await journal.load()) == expected)
        #expect(journal.recovery.droppedDamage.map(\.line) == [1])
        let aside = try #require(journal.recovery.damagedFileMovedTo)
        #expect(try PosixFileSystem().contents(atPath: aside) == bytes)
        try await journal.close()
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.isHealthy)
        #expect(report.batches >= 1)
    }

    @Test func staleTemporaryFileOfAnInterruptedCompactionIsRemoved() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let prefixes = try await makeJournal(in: directory, batches: 2)
        let temporary = directory.url.path + "/" + JournalStorage.temporaryFileName
        _ = FileManager.default.createFile(atPath: temporary, contents: Data("{\"crc\":\"0000".utf8))
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await journal.load()) == prefixes[2])
        #expect(journal.recovery.removedTemporaryFile)
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    /// A crash at any step of a salvage leaves a journal in place, damaged or clean, and the
    /// next salvage gives the same index; the damaged bytes are never lost.
    @Test func crashAtEveryStepOfASalvage() async throws {
        func damagedJournal(_ directory: TemporaryDirectory) async throws -> [UInt8] {
            _ = try await makeJournal(in: directory, batches: 5)
            var bytes = directory.journalBytes()
            bytes[lineStarts(bytes)[2] + 60] ^= 0x04
            directory.writeJournal(bytes)
            return bytes
        }
        let probe = FaultInjectingFileSystem()
        var expected: StateDump?
        var steps = 0
        do {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            _ = try await damagedJournal(directory)
            var options = journalOptions(fileSystem: probe, salvage: true)
            options.fileSystem = probe
            let journal = try await JournalStorage.open(directory: directory.url, options: options)
            steps = probe.mutatingOperations
            expected = StateDump(try await journal.load())
        }
        #expect(probe.operationLog.contains(.link), "\(probe.operationLog)")
        for step in 0..<steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let damaged = try await damagedJournal(directory)
            let fileSystem = FaultInjectingFileSystem()
            fileSystem.inject(.crash(keepingBytes: 100), at: step)
            await #expect(throws: BookmarkIndexError.self) {
                try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem, salvage: true))
            }
            fileSystem.restart(losingUnsyncedData: true)
            #expect(FileManager.default.fileExists(atPath: directory.journalPath), "crash at step \(step): a journal is in place")
            let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(salvage: true))
            #expect(StateDump(try await journal.load()) == expected, "crash at step \(step)")
            let kept = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
                .filter { $0.hasPrefix(JournalStorage.journalFileName + ".damaged-") }
                .compactMap { try? PosixFileSystem().contents(atPath: directory.url.path + "/" + $0) }
            #expect(kept.contains { fingerprint($0) == fingerprint(damaged) }, "crash at step \(step): the damaged file is kept")
        }
    }
}
