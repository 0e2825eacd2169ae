import Foundation

// Opening a journal for writing: reading it, planning its recovery, carrying the plan out.

extension JournalStorage {
    // MARK: Open

    struct Opened {
        /// The journal open for appending.
        var file: JournalFileHandle
        var length: Int
        var nextSequence: Int
        /// Where its last line starts, and its header's `id` (`nil` for an old header without one).
        var lastLineOffset: Int
        var id: UInt64?
        var state: BookmarkIndexState
        var recovery: JournalRecoveryReport
    }

    /// Reads the journal, plans its recovery and carries the plan out: the open of a writer,
    /// which holds the directory's lock.
    static func open(directory: String, options: Options) throws -> Opened {
        let fileSystem = options.fileSystem
        let journalPath = directory + "/" + journalFileName
        let reading = try JournalReading.read(directory: directory, options: options, usingCheckpoint: true)
        let plan = JournalRecoveryPlan(reading, options: options, writes: true) { unusedPath($0, fileSystem: fileSystem) }
        if case .refuse(let error) = plan.action { throw error }
        if plan.removesTemporaryFile {
            // A compaction or migration that never reached its rename: the journal beside it is
            // complete and authoritative.
            try fileSystem.removeItem(atPath: directory + "/" + temporaryFileName)
        }
        if reading.migratingFrom == nil && fileSystem.fileExists(atPath: directory + "/" + IndexCheckpoint.temporaryFileName) {
            try? fileSystem.removeItem(atPath: directory + "/" + IndexCheckpoint.temporaryFileName)
        }
        switch plan.action {
        case .refuse(let error):
            throw error
        case .startFresh:
            let written = try WholeFileWriter.writeJournal(plan.state, compacted: nil, directory: directory, options: options)
            return Opened(written, state: plan.state, recovery: plan.recovery)
        case .rewrite(let aside):
            let written = try WholeFileWriter.writeJournal(plan.state, compacted: options.now(), directory: directory, options: options, keepingOldAs: aside)
            return Opened(written, state: plan.state, recovery: plan.recovery)
        case .append(let cut):
            let scan = reading.scan!
            let file = try fileSystem.openForWriting(atPath: journalPath)
            do {
                if let cut {
                    try fileSystem.truncate(file, toLength: cut)
                    try fileSystem.synchronize(file)
                }
            } catch {
                try? fileSystem.close(file)
                throw error
            }
            if let coverage = plan.checkpoint {
                CheckpointPolicy.refreshCheckpoint(plan.state, coverage: coverage, directory: directory, options: options)
            }
            return Opened(
                file: file, length: scan.goodLength, nextSequence: scan.lastSequence + 1, lastLineOffset: scan.lastGoodLineStart,
                id: reading.header?.id, state: plan.state, recovery: plan.recovery
            )
        }
    }

    /// `path`, or `path-2`, `path-3`, … : the first that does not exist yet.
    static func unusedPath(_ path: String, fileSystem: any JournalFileSystem) -> String {
        var candidate = path
        var suffix = 1
        while fileSystem.fileExists(atPath: candidate) {
            suffix += 1
            candidate = "\(path)-\(suffix)"
        }
        return candidate
    }
}

extension JournalStorage.Opened {
    /// A journal the open wrote whole (a new one, or one migrated or salvaged).
    init(_ written: WholeFileWriter.Written, state: BookmarkIndexState, recovery: JournalRecoveryReport) {
        self.init(
            file: written.file, length: written.installed.length, nextSequence: written.installed.nextSequence,
            lastLineOffset: written.installed.lastLineOffset, id: written.installed.id, state: state, recovery: recovery
        )
    }
}
