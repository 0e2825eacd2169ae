import Foundation

// Opening a journal: the header, the snapshot, the lines after it, repairs and migration.

extension JournalStorage {
    // MARK: Open

    struct Opened {
        /// The journal open for appending; `nil` when opened read-only.
        var file: JournalFileHandle?
        var length: Int
        var nextSequence: Int
        var state: BookmarkIndexState
        var recovery: JournalRecoveryReport
    }

    static func open(directory: String, options: Options) throws -> Opened {
        let fileSystem = options.fileSystem
        let journalPath = directory + "/" + journalFileName
        let temporaryPath = directory + "/" + temporaryFileName
        var recovery = JournalRecoveryReport()

        // A temporary file is a compaction or migration that never reached its rename: the
        // journal beside it is complete and authoritative.
        if fileSystem.fileExists(atPath: temporaryPath) && !options.readOnly {
            try fileSystem.removeItem(atPath: temporaryPath)
            recovery.removedTemporaryFile = true
        }

        // Everything open reads of the journal (header, the end of a snapshot's coverage, the
        // lines) comes through one handle: a read-only open racing a writer's compaction sees
        // one file, old or new, never the header of one and the lines of the other.
        let reading = try fileSystem.openForReading(atPath: journalPath)
        defer { if let reading { try? fileSystem.close(reading) } }
        let head = try reading.map { try readHead($0, fileSystem: fileSystem) } ?? (firstLine: nil, length: 0)
        guard let reading, let headerLine = head.firstLine else {
            if options.readOnly {
                return Opened(file: nil, length: head.length, nextSequence: 1, state: BookmarkIndexState(), recovery: recovery)
            }
            // No journal yet, or one whose header never finished: start a fresh one.
            if head.length > 0 {
                recovery.truncatedTail = .init(line: 1, offset: 0, bytes: head.length, reason: "the header is cut short (no newline)")
            }
            let state = BookmarkIndexState()
            let written = try writeJournal(state, compacted: nil, directory: directory, options: options)
            return Opened(file: written.file, length: written.length, nextSequence: 1, state: state, recovery: recovery)
        }

        let plan = options.migrations
        let header: JournalCodec.Header
        do {
            header = try readHeader(headerLine, path: journalPath)
        } catch let error as BookmarkIndexError where error.code == .corrupt && options.salvage {
            // Salvage keeps what can be kept: the batches, read as this library's schema (the
            // header that named it is gone). The scan reports line 1 as the damage, so the
            // clean journal is written and the damaged one kept aside, as for any damage.
            header = .init(schemaVersion: plan.currentVersion, created: options.now(), compacted: nil, id: nil)
        }
        let headerVersion = header.schemaVersion
        if headerVersion > plan.currentVersion {
            throw BookmarkIndexError(
                .newerSchema,
                "The journal \(journalPath) is at schema version \(headerVersion), newer than this library's \(plan.currentVersion). It was left untouched; open it with a newer version of the library."
            )
        }
        let migrating = headerVersion < plan.currentVersion
        var state = BookmarkIndexState()
        var resume: JournalScanner.Resume?
        if migrating && fileSystem.fileExists(atPath: directory + "/" + IndexSnapshot.fileName) {
            // Of the old file, in the old schema: the migrated journal gets a snapshot of its own.
            recovery.snapshotNotUsed = "the journal was at schema version \(headerVersion), older than this library's \(plan.currentVersion): it was read whole and migrated, and the index snapshot of the old file was not used"
        }
        if !migrating {
            if !options.readOnly && fileSystem.fileExists(atPath: directory + "/" + IndexSnapshot.temporaryFileName) {
                try? fileSystem.removeItem(atPath: directory + "/" + IndexSnapshot.temporaryFileName)
            }
            switch usableSnapshot(directory: directory, header: header, journal: reading, fileSystem: fileSystem) {
            case .none:
                break
            case .usable(let snapshot, let coverage):
                state = snapshot
                resume = .init(coverage, header: header)
            case .unusable(let reason):
                recovery.snapshotNotUsed = reason
            }
        }
        var damage: [JournalDamage] = []
        var goodLines = 1
        /// Damage found after a snapshot: the journal is read again whole before anything is
        /// concluded, since a snapshot that does not fit the lines after it is no evidence.
        struct DamageAfterSnapshot: Error {}
        func scan(from resume: JournalScanner.Resume?) throws -> JournalScanner.Result {
            damage = []
            goodLines = resume?.lines ?? 1
            return try JournalScanner.scan(
                file: reading, fileSystem: fileSystem,
                decodeBatch: migrating ? try migrator(plan: plan, from: headerVersion, path: journalPath) : nil,
                resume: resume
            ) { event in
                switch event {
                case .header:
                    break
                case .batch(_, let changes, _, _):
                    goodLines += 1
                    state.apply(changes)
                case .damage(let found):
                    if resume != nil { throw DamageAfterSnapshot() }
                    guard options.salvage else {
                        throw BookmarkIndexError(
                            .corrupt,
                            "The journal \(journalPath) is damaged at \(found). Nothing was changed. Open with salvage to keep every valid batch and move the damaged file aside, or delete it (JournalStorage.removeJournal) and sync again."
                        )
                    }
                    damage.append(found)
                }
            }
        }
        let result: JournalScanner.Result
        do {
            do {
                result = try scan(from: resume)
            } catch is DamageAfterSnapshot {
                recovery.snapshotNotUsed = "the journal's lines after the index snapshot do not follow it (damage, or a snapshot that does not fit them); the journal was read whole"
                resume = nil
                state = BookmarkIndexState()
                result = try scan(from: nil)
            }
        } catch let failure as JournalScanner.ScanFailure {
            throw migrationError(failure, plan: plan, path: journalPath)
        }
        // Cut off below (or, read-only or rewriting, just left behind): reported either way.
        if let tail = result.tornTail {
            recovery.truncatedTail = .init(line: tail.line, offset: tail.offset, bytes: result.length - tail.offset, reason: tail.reason)
        }
        if migrating || !damage.isEmpty {
            var aside: String?
            if !damage.isEmpty {
                // Kept under a new name (a second link to the same file) only once the clean
                // journal is durable, and the clean one renamed in after: a crash at any step
                // leaves a journal in place, damaged or clean, never none.
                aside = unusedPath(journalPath + ".damaged-" + String(Int(options.now().timeIntervalSince1970)), fileSystem: fileSystem)
                recovery.droppedDamage = damage
                recovery.damagedFileMovedTo = aside
            }
            if migrating { recovery.migratedFromVersion = headerVersion }
            if !damage.isEmpty {
                // The dropped batches may have held rows of either list (or their removals): the
                // next sync of each list must be a full walk, not a delta that trusts what is left.
                // The sync engine's record is kept, marked stale: what it says of the rows (a walk's
                // cursor) may no longer hold, what the app recorded (tombstones) still does.
                for restrict in Restrict.allCases {
                    var syncState = state.metadata(for: restrict).syncState
                    syncState?.isStale = true
                    state.apply(.setMetadata(BookmarkIndexMetadata(syncState: syncState), for: restrict))
                }
            }
            if options.readOnly {
                recovery.damagedFileMovedTo = nil
                return Opened(file: nil, length: result.length, nextSequence: result.lastSequence + 1, state: state, recovery: recovery)
            }
            let written = try writeJournal(state, compacted: options.now(), directory: directory, options: options, keepingOldAs: aside)
            return Opened(file: written.file, length: written.length, nextSequence: written.nextSequence, state: state, recovery: recovery)
        }
        if options.readOnly {
            return Opened(file: nil, length: result.goodLength, nextSequence: result.lastSequence + 1, state: state, recovery: recovery)
        }

        let file = try fileSystem.openForAppending(atPath: journalPath, truncating: false)
        do {
            if let tail = result.tornTail {
                // Without damage before it, the torn line starts where the last good line ends.
                try fileSystem.truncate(file, toLength: tail.offset)
                try fileSystem.synchronize(file)
            }
        } catch {
            try? fileSystem.close(file)
            throw error
        }
        // No snapshot could be used, or the lines after it have grown past a quarter of what it
        // covers: write one, so that the next open need not replay them all again.
        let replayed = result.goodLength - (resume?.offset ?? 0)
        if let id = header.id, resume.map({ replayed > max(options.snapshotMinimumBytes, $0.offset / 4) }) ?? true {
            let coverage = IndexSnapshot.Coverage(
                schemaVersion: headerVersion, journalID: id, length: result.goodLength,
                lines: goodLines, lastSequence: result.lastSequence, lastLineOffset: result.lastGoodLineStart
            )
            refreshSnapshot(state, coverage: coverage, directory: directory, options: options)
        }
        return Opened(file: file, length: result.goodLength, nextSequence: result.lastSequence + 1, state: state, recovery: recovery)
    }

    // MARK: The index snapshot

    enum SnapshotLookup {
        case none
        case usable(BookmarkIndexState, IndexSnapshot.Coverage)
        case unusable(String)
    }

    /// The snapshot in `directory` if it is of the journal whose header is `header`, as it is
    /// on disk now. Which journal a snapshot is of is checked before its sections are read.
    static func usableSnapshot(
        directory: String,
        header: JournalCodec.Header,
        journal: JournalFileHandle,
        fileSystem: any JournalFileSystem
    ) -> SnapshotLookup {
        do {
            let found = try IndexSnapshot.read(directory: directory, fileSystem: fileSystem) { coverage in
                guard let id = header.id, coverage.journalID == id, coverage.schemaVersion == header.schemaVersion else {
                    return "the index snapshot is of another journal file (one replaced since, by compaction or a reset); the journal was read whole"
                }
                // The journal is append-only between compactions: if its line where the coverage
                // ends is the last batch the snapshot covers, the lines covered are the ones it was
                // taken of, and the next batch number is known.
                return try lastCoveredLineProblem(coverage, in: journal, fileSystem: fileSystem)
            }
            guard let found else { return .none }
            return .usable(found.state, found.coverage)
        } catch let refused as IndexSnapshot.Refused {
            return .unusable(refused.reason)
        } catch {
            return .unusable("the index snapshot cannot be used (\(error)); the journal was read whole")
        }
    }

    /// Why the journal's line that ends where `coverage` does is not the last line it covers,
    /// or `nil` when it is: checksummed, and holding batch `coverage.lastSequence` (the header
    /// when that is 0).
    static func lastCoveredLineProblem(
        _ coverage: IndexSnapshot.Coverage,
        in journal: JournalFileHandle,
        fileSystem: any JournalFileSystem
    ) throws -> String? {
        let notThere = "the journal does not end its lines where the index snapshot says (cut back since?); the journal was read whole"
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

    /// Writes the snapshot of a journal that `coverage` describes, or removes an old one when
    /// the journal is too small to need one. A snapshot is a cache: failing to write one costs
    /// the next open time, nothing else, so failures are not reported.
    static func refreshSnapshot(_ state: BookmarkIndexState, coverage: IndexSnapshot.Coverage, directory: String, options: Options) {
        let fileSystem = options.fileSystem
        if coverage.length >= options.snapshotMinimumBytes {
            try? IndexSnapshot.write(state, coverage: coverage, directory: directory, fileSystem: fileSystem)
        } else if fileSystem.fileExists(atPath: directory + "/" + IndexSnapshot.fileName) {
            try? fileSystem.removeItem(atPath: directory + "/" + IndexSnapshot.fileName)
        }
    }

    /// The first line of the journal (without its newline), and the file's length when it has
    /// no complete first line; `firstLine` is `nil` when there is no file, an empty one, or one
    /// cut short before the header's newline.
    static func readHead(_ path: String, fileSystem: any JournalFileSystem) throws -> (firstLine: [UInt8]?, length: Int) {
        guard let file = try fileSystem.openForReading(atPath: path) else { return (nil, 0) }
        defer { try? fileSystem.close(file) }
        return try readHead(file, fileSystem: fileSystem)
    }

    /// The first line of the journal open as `file`, read from its start.
    static func readHead(_ file: JournalFileHandle, fileSystem: any JournalFileSystem) throws -> (firstLine: [UInt8]?, length: Int) {
        try fileSystem.seek(file, toOffset: 0)
        var head: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try block.withUnsafeMutableBytes { try fileSystem.read(file, into: $0) }
            if count == 0 { return (nil, head.count) }
            head.append(contentsOf: block[..<count])
            if let newline = head.firstIndex(of: 0x0A) { return (Array(head[..<newline]), head.count) }
        }
    }

    /// The header, read before anything else so that a newer file is refused before it could
    /// be touched.
    static func readHeader(_ line: [UInt8], path: String) throws -> JournalCodec.Header {
        try line.withUnsafeBytes { line in
            do {
                try JournalCodec.verifyChecksum(line)
                guard case .header(let header) = try JournalCodec.decodeVerifiedLine(line) else {
                    throw JSONReadError(offset: 0, message: "the first line is not a journal header")
                }
                return header
            } catch {
                throw BookmarkIndexError(
                    .corrupt,
                    "The journal \(path) has no readable header at line 1, byte offset 0 (\(error)). Nothing was changed. Open with salvage to keep every valid batch (read as this library's schema) and move the damaged file aside, or delete it (JournalStorage.removeJournal) and sync again."
                )
            }
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
