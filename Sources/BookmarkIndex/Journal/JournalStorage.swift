import Foundation
import Synchronization

/// The default storage: a directory holding an append-only JSON-lines journal.
///
/// - **Format**: a header line, then one line per committed batch, each with a sequence number
///   and a CRC-32C; see the "Journal format" article.
/// - **Durability**: one `write` per batch, then `fsync` (``Options/Durability/always``, the
///   default) or not (``Options/Durability/none``). When `append` returns, the batch is on disk;
///   when a write or fsync fails, the file is cut back to its last good length and the error is
///   reported, so what was acknowledged is on disk and what failed is not.
/// - **Recovery**: a torn or checksum-failing *last* line is a crash mid-write: open cuts it off
///   and says so in ``recovery``. A bad line anywhere else, or a gap in the sequence numbers, is
///   corruption: open throws ``BookmarkIndexError/Code/corrupt`` naming the line and byte offset,
///   unless ``Options/salvage`` is set, which keeps every valid batch and moves the damaged file
///   aside.
/// - **Compaction**: the live state is written to a temporary file, fsynced, renamed over the
///   journal, and the directory fsynced; a crash at any step leaves the complete old or the
///   complete new journal. Automatic once the journal outgrows its threshold; on demand through
///   ``BookmarksIndexStore/compact()``.
/// - **Index snapshot**: for journals of at least ``Options/snapshotMinimumBytes``, compaction
///   also writes `index.snapshot`, the in-memory index as raw arrays; open reads it and replays
///   only the lines after it, and ignores one that is damaged or of another journal. It is a
///   cache: the journal stays the only record.
/// - **One writer**: an advisory lock on `LOCK` in the directory; a second open, from this
///   process or another, throws ``BookmarkIndexError/Code/locked``.
/// - **Migrations**: see ``JournalMigrationPlan``.
///
/// Thread-safety: all methods may be called from any thread; they are serialized internally.
public final class JournalStorage: BookmarkStorage {
    /// How a journal is opened and written.
    public struct Options: Sendable {
        /// When a batch counts as written.
        public enum Durability: Sendable, Hashable {
            /// After `fsync`: the batch survives a crash or power loss.
            case always
            /// After `write`: the batch survives a crash of the process, not of the machine.
            case none
        }

        /// When a batch counts as written. Defaults to ``Durability/always``.
        public var durability: Durability = .always
        /// Open a journal damaged in the middle by keeping every valid batch and keeping the
        /// damaged file as `journal.jsonl.damaged-<time>`, instead of refusing to open.
        public var salvage = false
        /// The journal is compacted automatically once it is larger than this many bytes ...
        public var compactionMinimumBytes = 1 << 20
        /// ... and than this factor times its size after the last compaction (or at open).
        public var compactionGrowthFactor = 2.0
        /// A journal at least this many bytes long gets an index snapshot when it is written
        /// whole (compaction, migration, salvage), or opened without a usable one or with more
        /// lines after it than this and a quarter of what it covers, so that the next open reads
        /// the snapshot instead of replaying the lines it covers. `Int.max` turns snapshots off.
        public var snapshotMinimumBytes = 1 << 20
        /// The schema migrations to apply to an older journal.
        public var migrations = JournalMigrationPlan.production
        /// Open to read only: no lock is taken and nothing is written, so a tool can read a
        /// store another process is syncing. A torn tail is ignored rather than cut off, an
        /// older schema is migrated in memory only, and every write throws
        /// ``BookmarkIndexError/Code/invalidArgument``.
        public var readOnly = false
        /// The file system; tests substitute one that injects faults.
        public var fileSystem: any JournalFileSystem = PosixFileSystem()
        /// The wall clock, for the header's dates.
        public var now: @Sendable () -> Date = { Date() }

        /// The default options.
        public init() {}
    }

    /// The journal's file name inside the store directory.
    public static let journalFileName = "journal.jsonl"
    /// The index snapshot's file name inside the store directory: a cache of the journal's
    /// first lines that open reads instead of replaying them (see the "Journal format" article).
    /// Deleting it loses nothing; the next open reads the journal whole.
    public static let snapshotFileName = IndexSnapshot.fileName
    static let temporaryFileName = "journal.jsonl.tmp"
    static let lockFileName = "LOCK"
    /// Upsert changes per line when compaction writes the live state.
    static let rowsPerCompactedLine = 1_000

    /// The store directory.
    public let directory: String
    /// What opening the journal found and repaired.
    public let recovery: JournalRecoveryReport

    private struct Writer {
        var file: JournalFileHandle?
        var lock: JournalFileHandle?
        var length: Int
        var nextSequence: Int
        var lengthAfterCompaction: Int
        /// The state read at open, handed over once by `load()`.
        var loadedState: BookmarkIndexState?
        /// Set when the journal's file is in a state this object can no longer vouch for.
        var failure: BookmarkIndexError?
    }

    private let options: Options
    private let writer: Mutex<Writer>
    private var fileSystem: any JournalFileSystem { options.fileSystem }
    private var journalPath: String { directory + "/" + Self.journalFileName }
    private var temporaryPath: String { directory + "/" + Self.temporaryFileName }

    /// Opens (creating if needed) the journal in `directory`: takes the lock, reads and checks
    /// every line, repairs a torn tail, migrates an older schema.
    ///
    /// - Throws: ``BookmarkIndexError`` — ``BookmarkIndexError/Code/locked``,
    ///   ``BookmarkIndexError/Code/corrupt``, ``BookmarkIndexError/Code/newerSchema``,
    ///   ``BookmarkIndexError/Code/migrationFailed`` or ``BookmarkIndexError/Code/io``.
    public init(directory: URL, options: Options = Options()) throws {
        self.directory = directory.path
        self.options = options
        let fileSystem = options.fileSystem
        if options.readOnly {
            let opened = try Self.open(directory: self.directory, options: options)
            recovery = opened.recovery
            writer = Mutex(Writer(
                file: nil, lock: nil, length: opened.length, nextSequence: opened.nextSequence,
                lengthAfterCompaction: opened.length, loadedState: opened.state,
                failure: BookmarkIndexError(.invalidArgument, "The journal in \(directory.path) was opened read-only.")
            ))
            return
        }
        try fileSystem.createDirectory(atPath: self.directory)
        let lock = try fileSystem.lockExclusively(atPath: self.directory + "/" + Self.lockFileName)
        do {
            let opened = try Self.open(directory: self.directory, options: options)
            recovery = opened.recovery
            writer = Mutex(Writer(
                file: opened.file, lock: lock, length: opened.length, nextSequence: opened.nextSequence,
                lengthAfterCompaction: opened.length, loadedState: opened.state, failure: nil
            ))
        } catch {
            try? fileSystem.close(lock)
            throw error
        }
    }

    // MARK: BookmarkStorage

    /// Hands over the index read at open. A journal backs one store: a second call throws
    /// rather than return an empty index that the next compaction would write over the journal.
    public func load() throws -> BookmarkIndexState {
        try writer.withLock { writer in
            if !options.readOnly { try check(writer) }
            guard let state = writer.loadedState else {
                throw BookmarkIndexError(
                    .invalidArgument,
                    "The journal \(journalPath) has already been loaded by a store; open a new JournalStorage for another store."
                )
            }
            writer.loadedState = nil
            return state
        }
    }

    public func append(_ changes: [BookmarkChange]) throws {
        try writer.withLock { writer in
            try check(writer)
            guard let file = writer.file else { throw closedError() }
            var line = JSONWriter(capacity: 512 * changes.count)
            JournalCodec.appendBatch(sequence: writer.nextSequence, changes, to: &line)
            do {
                try line.bytes.withUnsafeBytes { try fileSystem.write($0, to: file) }
                if options.durability == .always { try fileSystem.synchronize(file) }
            } catch {
                // Cut the file back so that what failed is not on disk; if even that fails, the
                // file's end is unknown and this journal refuses further writes until reopened.
                do {
                    try fileSystem.truncate(file, toLength: writer.length)
                    if options.durability == .always { try fileSystem.synchronize(file) }
                } catch {
                    writer.failure = BookmarkIndexError(
                        .io, "The journal \(journalPath) could not be cut back after a failed write; reopen the store to recover it.",
                        underlying: error
                    )
                }
                throw BookmarkIndexError(
                    .io, "Could not append batch \(writer.nextSequence) to \(journalPath); it was not stored.",
                    underlying: error
                )
            }
            writer.length += line.bytes.count
            writer.nextSequence += 1
        }
    }

    public var wantsCompaction: Bool {
        writer.withLock { writer in
            writer.failure == nil && writer.file != nil
                && writer.length > max(options.compactionMinimumBytes, Int(Double(writer.lengthAfterCompaction) * options.compactionGrowthFactor))
        }
    }

    public func compact(_ state: BookmarkIndexState) throws {
        try writer.withLock { writer in
            try check(writer)
            guard writer.file != nil else { throw closedError() }
            try replaceJournal(with: state, writer: &writer)
        }
    }

    public func reset() throws {
        try compact(BookmarkIndexState())
    }

    public func close() throws {
        try writer.withLock { writer in
            // Close both, whatever happens to the first, so the lock is always released.
            let file = writer.file, lock = writer.lock
            writer.file = nil
            writer.lock = nil
            var failure: (any Error)?
            if let file { do { try fileSystem.close(file) } catch { failure = error } }
            if let lock { do { try fileSystem.close(lock) } catch { failure = failure ?? error } }
            if let failure { throw failure }
        }
    }

    deinit {
        writer.withLock { writer in
            if let file = writer.file { try? fileSystem.close(file) }
            if let lock = writer.lock { try? fileSystem.close(lock) }
        }
    }

    // MARK: Health

    /// Reads the journal back from disk and reports its health, with what open repaired.
    public func healthReport() throws -> JournalHealthReport {
        try writer.withLock { _ in
            var report = try Self.verify(directory: URL(fileURLWithPath: directory), fileSystem: fileSystem, migrations: options.migrations)
            report.recovery = recovery
            return report
        }
    }

    /// Reads the journal in `directory` and reports its health, changing nothing and taking no
    /// lock: safe on a store another process has open.
    ///
    /// A journal at an older schema is read through `migrations` (as opening would migrate
    /// it); one newer than `migrations.currentVersion` is reported as damage, since opening it
    /// is refused.
    public static func verify(
        directory: URL,
        fileSystem: any JournalFileSystem = PosixFileSystem(),
        migrations: JournalMigrationPlan = .production
    ) throws -> JournalHealthReport {
        let path = directory.path + "/" + journalFileName
        var report = JournalHealthReport(
            path: path, batches: 0, bytes: 0,
            livePublicBookmarks: 0, livePrivateBookmarks: 0, damage: []
        )
        var decodeBatch: JournalScanner.Decoder?
        if let headerLine = try readHead(path, fileSystem: fileSystem).firstLine,
           let version = try? readHeader(headerLine, path: path).schemaVersion, version != migrations.currentVersion {
            if version > migrations.currentVersion {
                report.schemaVersion = version
                report.bytes = try fileSystem.contents(atPath: path)?.count ?? 0
                report.damage = [JournalDamage(
                    line: 1, offset: 0,
                    reason: "schema version \(version) is newer than this library's \(migrations.currentVersion): opening it is refused; nothing else was read"
                )]
                return report
            }
            decodeBatch = try migrator(plan: migrations, from: version, path: path)
        }
        var state = BookmarkIndexState()
        let scanned: JournalScanner.Result?
        do {
            scanned = try JournalScanner.scan(path: path, fileSystem: fileSystem, decodeBatch: decodeBatch) { event in
                switch event {
                case .header(let header):
                    report.schemaVersion = header.schemaVersion
                    report.created = header.created
                    report.lastCompaction = header.compacted
                case .batch(_, let changes, _, _):
                    report.batches += 1
                    state.apply(changes)
                case .damage(let damage):
                    report.damage.append(damage)
                }
            }
        } catch let failure as JournalScanner.ScanFailure {
            throw migrationError(failure, plan: migrations, path: path)
        }
        guard let result = scanned else {
            throw BookmarkIndexError(.io, "There is no journal at \(path).")
        }
        report.bytes = result.length
        if result.header == nil, report.damage.first?.line != 1 {
            report.damage.insert(JournalDamage(line: 1, offset: 0, reason: "the header is missing or cut short"), at: 0)
        }
        report.tornTail = result.tornTail
        report.livePublicBookmarks = state.count(in: .public)
        report.livePrivateBookmarks = state.count(in: .private)
        report.snapshot = try verifySnapshot(
            directory: directory.path, header: result.header, journalState: state, journalLength: result.length,
            fileSystem: fileSystem, migrating: decodeBatch != nil
        )
        return report
    }

    /// Checks the snapshot in `directory` against `journalState`, what reading the journal
    /// (whose header is `header`) whole gave: its first `journalLength` bytes, so that lines a
    /// writer appends meanwhile are left out of both.
    private static func verifySnapshot(
        directory: String,
        header: JournalCodec.Header?,
        journalState: BookmarkIndexState,
        journalLength: Int,
        fileSystem: any JournalFileSystem,
        migrating: Bool
    ) throws -> JournalSnapshotReport? {
        guard fileSystem.fileExists(atPath: directory + "/" + IndexSnapshot.fileName) else { return nil }
        guard let header, !migrating else {
            return JournalSnapshotReport(notUsedBecause: "the journal's header is unreadable or at an older schema", agreesWithJournal: true)
        }
        guard let journal = try fileSystem.openForReading(atPath: directory + "/" + journalFileName) else { return nil }
        defer { try? fileSystem.close(journal) }
        switch usableSnapshot(directory: directory, header: header, journal: journal, fileSystem: fileSystem) {
        case .none:
            return nil
        case .unusable(let reason):
            return JournalSnapshotReport(notUsedBecause: reason, agreesWithJournal: true)
        case .usable(var state, let coverage):
            // Written since the journal was read (a writer compacted or reopened meanwhile): it
            // covers lines this check did not read, so there is nothing to compare it with.
            guard coverage.length <= journalLength else {
                return JournalSnapshotReport(coveredBytes: coverage.length, agreesWithJournal: true)
            }
            let resume = JournalScanner.Resume(coverage, header: header)
            _ = try JournalScanner.scan(file: journal, fileSystem: fileSystem, resume: resume, limit: journalLength) { event in
                if case .batch(_, let changes, _, _) = event { state.apply(changes) }
            }
            return JournalSnapshotReport(coveredBytes: coverage.length, agreesWithJournal: state.hasSameContent(as: journalState))
        }
    }

    /// Deletes the journal in `directory` without opening it, so a store that cannot be opened
    /// (damaged, a failed migration, written by a newer library) can still be reset and synced
    /// again. Copies kept by an earlier salvage (`journal.jsonl.damaged-*`) are left alone.
    ///
    /// - Throws: ``BookmarkIndexError/Code/locked`` when a store has the directory open.
    public static func removeJournal(in directory: URL, fileSystem: any JournalFileSystem = PosixFileSystem()) throws {
        let path = directory.path
        guard fileSystem.fileExists(atPath: path + "/" + journalFileName) else { return }
        let lock = try fileSystem.lockExclusively(atPath: path + "/" + lockFileName)
        defer { try? fileSystem.close(lock) }
        try fileSystem.removeItem(atPath: path + "/" + temporaryFileName)
        try fileSystem.removeItem(atPath: path + "/" + journalFileName)
        for snapshot in [IndexSnapshot.fileName, IndexSnapshot.temporaryFileName] where fileSystem.fileExists(atPath: path + "/" + snapshot) {
            try fileSystem.removeItem(atPath: path + "/" + snapshot)
        }
        try fileSystem.synchronizeDirectory(atPath: path)
    }

    // MARK: Open

    private struct Opened {
        /// The journal open for appending; `nil` when opened read-only.
        var file: JournalFileHandle?
        var length: Int
        var nextSequence: Int
        var state: BookmarkIndexState
        var recovery: JournalRecoveryReport
    }

    private static func open(directory: String, options: Options) throws -> Opened {
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
                // What the app recorded (tombstones, its own bookmarks) still holds.
                for restrict in Restrict.allCases {
                    let kept = state.metadata(for: restrict)
                    state.apply(.setMetadata(BookmarkIndexMetadata(
                        unbookmarkedInApp: kept.unbookmarkedInApp, bookmarkedInApp: kept.bookmarkedInApp
                    ), for: restrict))
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

    private enum SnapshotLookup {
        case none
        case usable(BookmarkIndexState, IndexSnapshot.Coverage)
        case unusable(String)
    }

    /// The snapshot in `directory` if it is of the journal whose header is `header`, as it is
    /// on disk now. Which journal a snapshot is of is checked before its sections are read.
    private static func usableSnapshot(
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
    private static func lastCoveredLineProblem(
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
    private static func refreshSnapshot(_ state: BookmarkIndexState, coverage: IndexSnapshot.Coverage, directory: String, options: Options) {
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
    private static func readHead(_ path: String, fileSystem: any JournalFileSystem) throws -> (firstLine: [UInt8]?, length: Int) {
        guard let file = try fileSystem.openForReading(atPath: path) else { return (nil, 0) }
        defer { try? fileSystem.close(file) }
        return try readHead(file, fileSystem: fileSystem)
    }

    /// The first line of the journal open as `file`, read from its start.
    private static func readHead(_ file: JournalFileHandle, fileSystem: any JournalFileSystem) throws -> (firstLine: [UInt8]?, length: Int) {
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
    private static func readHeader(_ line: [UInt8], path: String) throws -> JournalCodec.Header {
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
    private static func unusedPath(_ path: String, fileSystem: any JournalFileSystem) -> String {
        var candidate = path
        var suffix = 1
        while fileSystem.fileExists(atPath: candidate) {
            suffix += 1
            candidate = "\(path)-\(suffix)"
        }
        return candidate
    }

    /// What a migration step, or a record after the steps, failed with.
    private struct MigrationFailure: Error {
        /// The version the failing step reads; `nil` when the migrated record did not decode.
        var step: Int?
        /// The 1-based index of the change in its batch.
        var change: Int
        var underlying: any Error
    }

    private static func migrationError(_ failure: JournalScanner.ScanFailure, plan: JournalMigrationPlan, path: String) -> BookmarkIndexError {
        guard let migration = failure.underlying as? MigrationFailure else {
            return BookmarkIndexError(.io, "Reading \(path) failed at line \(failure.line).", underlying: failure.underlying)
        }
        if let step = migration.step {
            return BookmarkIndexError(
                .migrationFailed,
                "Migrating \(path) from schema version \(step) to \(step + 1) failed at line \(failure.line), change \(migration.change): \(migration.underlying). The journal was left as it was; delete it (JournalStorage.removeJournal) and sync again.",
                underlying: migration.underlying
            )
        }
        return BookmarkIndexError(
            .migrationFailed,
            "After migrating \(path) to schema version \(plan.currentVersion), line \(failure.line), change \(migration.change) is not a valid record: \(migration.underlying). The journal was left as it was.",
            underlying: migration.underlying
        )
    }

    /// A batch decoder that passes every change record through the plan's steps.
    private static func migrator(plan: JournalMigrationPlan, from version: Int, path: String) throws -> JournalScanner.Decoder {
        var steps: [JournalMigrationPlan.Step] = []
        for from in version..<plan.currentVersion {
            guard let step = plan.steps.first(where: { $0.from == from }) else {
                throw BookmarkIndexError(
                    .migrationFailed,
                    "The journal \(path) is at schema version \(version), but there is no migration step from version \(from) to \(from + 1). It was left as it was."
                )
            }
            steps.append(step)
        }
        return { [steps] line in
            var reader = JSONReader(line)
            guard case .object(let members) = try JournalValue.read(&reader),
                  case .array(let records) = members["changes"] ?? .null else {
                throw JSONReadError(offset: 0, message: "the batch has no changes array")
            }
            var changes: [BookmarkChange] = []
            for (index, record) in records.enumerated() {
                var record = record
                for step in steps {
                    do {
                        try step.transform(&record)
                    } catch {
                        throw MigrationFailure(step: step.from, change: index + 1, underlying: error)
                    }
                }
                var writer = JSONWriter()
                record.write(to: &writer)
                do {
                    changes.append(try writer.bytes.withUnsafeBytes { bytes in
                        var reader = JSONReader(bytes)
                        return try JournalCodec.decodeChange(&reader)
                    })
                } catch {
                    throw MigrationFailure(step: nil, change: index + 1, underlying: error)
                }
            }
            return changes
        }
    }

    // MARK: Writing whole journals

    private struct Written {
        var file: JournalFileHandle
        var length: Int
        var nextSequence: Int
    }

    /// A journal written whole.
    private struct Installed {
        var length: Int
        var nextSequence: Int
        var id: UInt64
        var lastLineOffset: Int

        /// The snapshot coverage of the whole file: its header and every batch.
        func coverage(schemaVersion: Int) -> IndexSnapshot.Coverage {
            .init(
                schemaVersion: schemaVersion, journalID: id, length: length, lines: nextSequence,
                lastSequence: nextSequence - 1, lastLineOffset: lastLineOffset
            )
        }
    }

    /// Writes `state` as a complete journal and opens it for appending.
    private static func writeJournal(
        _ state: BookmarkIndexState,
        compacted: Date?,
        directory: String,
        options: Options,
        keepingOldAs aside: String? = nil
    ) throws -> Written {
        let installed = try installJournal(state, compacted: compacted, directory: directory, options: options, keepingOldAs: aside)
        try options.fileSystem.synchronizeDirectory(atPath: directory)
        if !options.readOnly {
            refreshSnapshot(state, coverage: installed.coverage(schemaVersion: options.migrations.currentVersion), directory: directory, options: options)
        }
        let file = try options.fileSystem.openForAppending(atPath: directory + "/" + journalFileName, truncating: false)
        return Written(file: file, length: installed.length, nextSequence: installed.nextSequence)
    }

    /// Writes `state` as a complete journal to the temporary file, fsyncs it and renames it
    /// over the journal. When this throws, the old journal is untouched; when it returns, the
    /// new one is in place (the caller still fsyncs the directory).
    private static func installJournal(
        _ state: BookmarkIndexState,
        compacted: Date?,
        directory: String,
        options: Options,
        keepingOldAs aside: String? = nil
    ) throws -> Installed {
        let fileSystem = options.fileSystem
        let id = UInt64.random(in: .min ... .max)
        let temporaryPath = directory + "/" + temporaryFileName
        var writer = JSONWriter(capacity: 1 << 16)
        JournalCodec.appendHeader(
            .init(schemaVersion: options.migrations.currentVersion, created: options.now(), compacted: compacted, id: id),
            to: &writer
        )
        var sequence = 0
        var lastLineOffset = 0
        for restrict in Restrict.allCases {
            let rows = state.allBookmarks(in: restrict)
            for start in stride(from: 0, to: rows.count, by: rowsPerCompactedLine) {
                sequence += 1
                lastLineOffset = writer.bytes.count
                let slice = rows[start..<min(start + rowsPerCompactedLine, rows.count)]
                JournalCodec.appendBatch(sequence: sequence, slice.lazy.map(BookmarkChange.upsert), to: &writer)
            }
        }
        let metadata = Restrict.allCases.compactMap { restrict -> BookmarkChange? in
            let metadata = state.metadata(for: restrict)
            return metadata == BookmarkIndexMetadata() ? nil : .setMetadata(metadata, for: restrict)
        }
        if !metadata.isEmpty {
            sequence += 1
            lastLineOffset = writer.bytes.count
            JournalCodec.appendBatch(sequence: sequence, metadata, to: &writer)
        }

        do {
            let temporary = try fileSystem.openForAppending(atPath: temporaryPath, truncating: true)
            do {
                try writer.bytes.withUnsafeBytes { try fileSystem.write($0, to: temporary) }
                try fileSystem.synchronize(temporary)
            } catch {
                try? fileSystem.close(temporary)
                throw error
            }
            try fileSystem.close(temporary)
            if let aside {
                try fileSystem.linkItem(atPath: directory + "/" + journalFileName, toPath: aside)
                // The copy's name is durable before the rename can replace the journal.
                try fileSystem.synchronizeDirectory(atPath: directory)
            }
            try fileSystem.rename(atPath: temporaryPath, toPath: directory + "/" + journalFileName)
        } catch {
            try? fileSystem.removeItem(atPath: temporaryPath)
            throw error
        }
        return Installed(length: writer.bytes.count, nextSequence: sequence + 1, id: id, lastLineOffset: lastLineOffset)
    }

    /// Compaction and reset: replaces the journal while this storage is open.
    private func replaceJournal(with state: BookmarkIndexState, writer: inout Writer) throws {
        let installed: Installed
        do {
            installed = try Self.installJournal(state, compacted: options.now(), directory: directory, options: options)
        } catch {
            throw BookmarkIndexError(.io, "Could not compact \(journalPath); the journal is unchanged.", underlying: error)
        }
        // The new journal is in place: the old handle points at a file that is gone.
        if let old = writer.file { try? fileSystem.close(old) }
        writer.file = nil
        do {
            try fileSystem.synchronizeDirectory(atPath: directory)
            writer.file = try fileSystem.openForAppending(atPath: journalPath, truncating: false)
        } catch {
            writer.failure = BookmarkIndexError(
                .io, "The compacted journal \(journalPath) is in place but could not be made durable or reopened; reopen the store.",
                underlying: error
            )
            throw writer.failure!
        }
        writer.length = installed.length
        writer.nextSequence = installed.nextSequence
        writer.lengthAfterCompaction = installed.length
        Self.refreshSnapshot(state, coverage: installed.coverage(schemaVersion: options.migrations.currentVersion), directory: directory, options: options)
    }

    private func check(_ writer: Writer) throws {
        if let failure = writer.failure { throw failure }
    }

    private func closedError() -> BookmarkIndexError {
        BookmarkIndexError(.closed, "The journal \(journalPath) is closed; open a new store to write.")
    }
}
