import Foundation

/// When the journal has a checkpoint beside it, and when one may be used: the checkpoint is
/// a cache of the journal's first lines, so every rule here trades time, never data.
enum CheckpointPolicy {
    /// Whether open, having replayed `replayed` bytes of lines after a checkpoint covering the
    /// first `resumedAt` bytes (or the whole journal, without one), writes a new checkpoint: when
    /// none could be used, or the lines after it have grown past the threshold and a quarter
    /// of what it covers, so that the next open need not replay them all again.
    static func wantsCheckpoint(afterReplaying replayed: Int, resumedAt: Int?, options: JournalStorage.Options) -> Bool {
        guard let resumedAt else { return true }
        return replayed > max(options.checkpointMinimumBytes, resumedAt / 4)
    }

    enum CheckpointLookup {
        case none
        case usable(BookmarkIndexState, IndexCheckpoint.Coverage)
        case unusable(String)
    }

    /// The checkpoint in `directory` if it is of the journal whose header is `header`, as it is
    /// on disk now. Which journal a checkpoint is of is checked before its sections are read.
    static func usableCheckpoint(
        directory: String,
        header: JournalCodec.Header,
        journal: JournalFileHandle,
        fileSystem: any JournalFileSystem,
        pool: IOThreadPool
    ) -> CheckpointLookup {
        do {
            let found = try IndexCheckpoint.read(directory: directory, fileSystem: fileSystem, pool: pool) { coverage in
                guard let id = header.id, coverage.journalID == id, coverage.schemaVersion == header.schemaVersion else {
                    return "the checkpoint is of another journal file (one replaced since, by compaction or a reset); the journal was read whole"
                }
                // The journal is append-only between compactions: if its line where the coverage
                // ends is the last batch the checkpoint covers, the lines covered are the ones it was
                // taken of, and the next batch number is known.
                return try lastCoveredLineProblem(coverage, in: journal, fileSystem: fileSystem)
            }
            guard let found else { return .none }
            return .usable(found.state, found.coverage)
        } catch let refused as IndexCheckpoint.Refused {
            return .unusable(refused.reason)
        } catch {
            return .unusable("the checkpoint cannot be used (\(error)); the journal was read whole")
        }
    }

    /// Why the journal's line that ends where `coverage` does is not the last line it covers,
    /// or `nil` when it is: checksummed, and holding batch `coverage.lastSequence` (the header
    /// when that is 0).
    static func lastCoveredLineProblem(
        _ coverage: IndexCheckpoint.Coverage,
        in journal: JournalFileHandle,
        fileSystem: any JournalFileSystem
    ) throws -> String? {
        let notThere = "the journal does not end its lines where the checkpoint says (cut back since?); the journal was read whole"
        let lineLength = coverage.length - coverage.lastLineOffset
        // Compaction writes lines of a thousand bookmarks; nothing the journal writes is near this.
        guard lineLength <= 64 << 20 else { return notThere }
        try fileSystem.seek(journal, toOffset: coverage.lastLineOffset)
        guard let line: [UInt8] = try fileSystem.readArray(journal, count: lineLength), line.last == 0x0A, line.dropLast().firstIndex(of: 0x0A) == nil else { return notThere }
        let matches = line.withUnsafeBytes { bytes -> Bool in
            let text = UnsafeRawBufferPointer(rebasing: bytes.dropLast())
            guard (try? JournalCodec.verifyChecksum(text)) != nil else { return false }
            if coverage.lastSequence == 0 { return coverage.lastLineOffset == 0 }
            return (try? JournalScanner.sequenceNumber(text)) == coverage.lastSequence
        }
        return matches ? nil : notThere
    }

    /// Writes the checkpoint of a journal that `coverage` describes, or removes an old one when
    /// the journal is too small to need one. A checkpoint is a cache: failing to write one costs
    /// the next open time, nothing else, so failures are not reported.
    static func refreshCheckpoint(_ state: BookmarkIndexState, coverage: IndexCheckpoint.Coverage, directory: String, options: JournalStorage.Options) {
        let fileSystem = options.fileSystem
        if coverage.length >= options.checkpointMinimumBytes {
            try? IndexCheckpoint.write(state, coverage: coverage, directory: directory, fileSystem: fileSystem)
        } else if fileSystem.fileExists(atPath: directory + "/" + IndexCheckpoint.fileName) {
            try? fileSystem.removeItem(atPath: directory + "/" + IndexCheckpoint.fileName)
        }
    }
}
