import Foundation

// Reading a journal back to report its health, and removing one without opening it.

extension JournalStorage {
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
    static func verifySnapshot(
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
}
