import Foundation

// Reading a journal back to report its health, and removing one without opening it.

extension JournalStorage {
    /// Reads the journal in `directory` and reports its health, changing nothing and taking no
    /// lock: safe on a store another process has open.
    ///
    /// A journal at an older schema is read through the migrations (as opening would migrate
    /// it); one newer than this library's schema is reported as damage, since opening it is
    /// refused. The reading runs on `pool`; it does not start for a cancelled caller, which
    /// gets `CancellationError`.
    public static func verify(directory: URL, pool: IOThreadPool = .shared) async throws -> JournalHealthReport {
        try await verify(directory: directory, fileSystem: PosixFileSystem(), migrations: .production, pool: pool)
    }

    /// ``verify(directory:pool:)`` through another file system or other migrations: the test
    /// seam. A journal newer than `migrations.currentVersion` is reported as damage.
    @_spi(Testing) public static func verify(
        directory: URL,
        fileSystem: any JournalFileSystem = PosixFileSystem(),
        migrations: JournalMigrationPlan = .production,
        pool: IOThreadPool = .shared
    ) async throws -> JournalHealthReport {
        try await pool.run { try verifyNow(directory: directory, fileSystem: fileSystem, migrations: migrations, pool: pool) }
    }

    /// ``verify(directory:pool:)`` on the calling thread, which blocks.
    static func verifyNow(directory: URL, fileSystem: any JournalFileSystem, migrations: JournalMigrationPlan, pool: IOThreadPool) throws -> JournalHealthReport {
        var options = Options()
        options.fileSystem = fileSystem
        options.migrations = migrations
        options.ioPool = pool
        return try verifyNow(directory: directory.path, options: options)
    }

    /// Reads the journal whole (the checkpoint aside, checked after), and plans its next open
    /// as open itself would.
    static func verifyNow(directory: String, options: Options, limit: Int? = nil, opened: JournalFileHandle? = nil) throws -> JournalHealthReport {
        let fileSystem = options.fileSystem
        let reading = try JournalReading.read(directory: directory, options: options, usingCheckpoint: false, limit: limit, opened: opened)
        var report = JournalHealthReport(
            path: reading.path, batches: reading.batchesRead, bytes: reading.scan?.length ?? 0,
            livePublicBookmarks: reading.state.count(in: .public), livePrivateBookmarks: reading.state.count(in: .private),
            damage: reading.damage
        )
        var plannedOptions = options
        plannedOptions.salvage = false
        let plan = JournalRecoveryPlan(reading, options: plannedOptions, writes: true) { $0 }
        switch plan.action {
        case .refuse(let error): report.nextOpenRefuses = error.message
        case .startFresh, .rewrite, .append: report.nextOpen = plan.recovery
        }
        let readableHeader: JournalCodec.Header?
        switch reading.head {
        case .missing(let length):
            guard fileSystem.fileExists(atPath: reading.path) else {
                throw BookmarkIndexError(.io, "There is no journal at \(reading.path).")
            }
            report.bytes = length
            report.damage = [JournalDamage(line: 1, offset: 0, reason: "the header is missing or cut short")]
            return report
        case .newer(let version):
            report.schemaVersion = version
            report.bytes = try fileSystem.contents(atPath: reading.path)?.count ?? 0
            report.damage = [JournalDamage(
                line: 1, offset: 0,
                reason: "schema version \(version) is newer than this library's \(options.migrations.currentVersion): opening it is refused; nothing else was read"
            )]
            return report
        case .header(let header, let unreadable):
            readableHeader = unreadable == nil ? header : nil
            if unreadable == nil {
                report.schemaVersion = header.schemaVersion
                report.created = header.created
                report.lastCompaction = header.compacted
            } else if report.damage.first?.line != 1 {
                report.damage.insert(JournalDamage(line: 1, offset: 0, reason: "the header is unreadable"), at: 0)
            }
        }
        report.tornTail = reading.scan?.tornTail
        report.checkpoint = try verifyCheckpoint(
            directory: directory, header: readableHeader, journalState: reading.state,
            journalLength: reading.scan?.length ?? 0, fileSystem: fileSystem, pool: options.ioPool, migrating: reading.migratingFrom != nil
        )
        return report
    }

    /// Checks the checkpoint in `directory` against `journalState`, what reading the journal
    /// (whose header is `header`) whole gave: its first `journalLength` bytes, so that lines a
    /// writer appends meanwhile are left out of both.
    static func verifyCheckpoint(
        directory: String,
        header: JournalCodec.Header?,
        journalState: BookmarkIndexState,
        journalLength: Int,
        fileSystem: any JournalFileSystem,
        pool: IOThreadPool,
        migrating: Bool
    ) throws -> JournalCheckpointReport? {
        guard fileSystem.fileExists(atPath: directory + "/" + IndexCheckpoint.fileName) else { return nil }
        guard let header, !migrating else {
            return JournalCheckpointReport(notUsedBecause: "the journal's header is unreadable or at an older schema", agreesWithJournal: true)
        }
        guard let journal = try fileSystem.openForReading(atPath: directory + "/" + journalFileName) else { return nil }
        defer { try? fileSystem.close(journal) }
        switch CheckpointPolicy.usableCheckpoint(directory: directory, header: header, journal: journal, fileSystem: fileSystem, pool: pool) {
        case .none:
            return nil
        case .unusable(let reason):
            return JournalCheckpointReport(notUsedBecause: reason, agreesWithJournal: true)
        case .usable(let checkpoint, let coverage):
            // Written since the journal was read (a writer compacted or reopened meanwhile): it
            // covers lines this check did not read, so there is nothing to compare it with.
            guard coverage.length <= journalLength else {
                return JournalCheckpointReport(coveredBytes: coverage.length, agreesWithJournal: true)
            }
            let resume = JournalScanner.Resume(coverage, header: header)
            var loader = IndexLoader(checkpoint)
            _ = try JournalScanner.scan(file: journal, fileSystem: fileSystem, pool: pool, resume: resume, limit: journalLength) { event in
                if case .batch(_, let changes, _, _) = event { loader.apply(changes) }
            }
            let state = loader.finish(on: pool)
            return JournalCheckpointReport(coveredBytes: coverage.length, agreesWithJournal: state.hasSameContent(as: journalState))
        }
    }

    /// Deletes the journal in `directory` without opening it, so a store that cannot be opened
    /// (damaged, a failed migration, written by a newer library) can still be reset and synced
    /// again. Copies kept by an earlier salvage (`journal.jsonl.damaged-*`) are left alone.
    ///
    /// - Throws: ``BookmarkIndexError/Code/locked`` when a store has the directory open, or
    ///   `CancellationError` when the calling task is cancelled before the removal starts
    ///   (nothing is removed).
    public static func removeJournal(in directory: URL, pool: IOThreadPool = .shared) async throws {
        try await pool.run { try removeJournalNow(in: directory, fileSystem: PosixFileSystem()) }
    }

    private static func removeJournalNow(in directory: URL, fileSystem: any JournalFileSystem) throws {
        let path = directory.path
        guard fileSystem.fileExists(atPath: path + "/" + journalFileName) else { return }
        let lock = try fileSystem.lockExclusively(atPath: path + "/" + lockFileName)
        defer { try? fileSystem.close(lock) }
        try fileSystem.removeItem(atPath: path + "/" + temporaryFileName)
        try fileSystem.removeItem(atPath: path + "/" + journalFileName)
        for checkpoint in [IndexCheckpoint.fileName, IndexCheckpoint.temporaryFileName] where fileSystem.fileExists(atPath: path + "/" + checkpoint) {
            try fileSystem.removeItem(atPath: path + "/" + checkpoint)
        }
        try fileSystem.synchronizeDirectory(atPath: path)
    }
}
