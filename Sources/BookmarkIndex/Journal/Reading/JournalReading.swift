import BookmarkJSON
import Foundation

/// What reading a journal directory found, before anything is repaired: the one reading that
/// opening, the read-only reader and `verify` share. Reading writes nothing and takes no lock.
struct JournalReading {
    /// What the journal's first line is.
    enum Head {
        /// No journal, an empty one, or one whose header line never finished (`length` bytes).
        case missing(length: Int)
        /// A newer schema than the plan knows: nothing after the header was read.
        case newer(version: Int)
        /// A header, read and checked, or (`unreadable`) one that fails and was replaced by this
        /// library's schema so that the batches could still be read.
        case header(JournalCodec.Header, unreadable: BookmarkIndexError?)
    }

    var path: String
    var head: Head
    /// The state the good batches give (from the checkpoint and the lines after it, or the
    /// journal read whole).
    var state = BookmarkIndexState()
    /// Lines that fail to read and are not the last one, and sequence gaps.
    var damage: [JournalDamage] = []
    /// The lines read back correctly, the header included; with a checkpoint, the lines it
    /// covers are counted.
    var goodLines = 1
    /// Batches read from the file itself (not through a checkpoint).
    var batchesRead = 0
    /// What the scan found at the end: the torn tail, the lengths. `nil` without a header.
    var scan: JournalScanner.Result?
    /// Where the lines replayed start, when a checkpoint gave the state of those before.
    var resumedAt: JournalScanner.Resume?
    /// Why the checkpoint beside the journal was not used, when there was one.
    var checkpointNotUsed: String?
    /// The schema version read, when older than the plan's (the batches were migrated).
    var migratingFrom: Int?
    /// A temporary file of a compaction or migration that never reached its rename.
    var hasTemporaryFile = false

    /// The header, when there is one (read or, unreadable, replaced).
    var header: JournalCodec.Header? {
        if case .header(let header, _) = head { return header }
        return nil
    }

    /// Reads the journal in `directory` through `options`' file system, pool and migrations,
    /// starting from the checkpoint when `usingCheckpoint` and one fits, and reading no
    /// further than byte `limit` (what a writer had acknowledged when the reading began).
    /// `opened`, when given, is the journal already open for reading (the caller closes it).
    static func read(
        directory: String,
        options: JournalStorage.Options,
        usingCheckpoint: Bool,
        limit: Int? = nil,
        opened: JournalFileHandle? = nil
    ) throws -> JournalReading {
        let fileSystem = options.fileSystem
        let path = directory + "/" + JournalStorage.journalFileName
        let plan = options.migrations
        var reading = JournalReading(path: path, head: .missing(length: 0))
        reading.hasTemporaryFile = fileSystem.fileExists(atPath: directory + "/" + JournalStorage.temporaryFileName)

        // Everything read of the journal (header, the end of a checkpoint's coverage, the lines)
        // comes through one handle: a reader racing a writer's compaction sees one file, old
        // or new, never the header of one and the lines of the other.
        guard let file = try opened ?? fileSystem.openForReading(atPath: path) else { return reading }
        defer { if opened == nil { try? fileSystem.close(file) } }
        let head = try readHead(file, fileSystem: fileSystem)
        guard let headerLine = head.firstLine else {
            reading.head = .missing(length: head.length)
            return reading
        }
        let header: JournalCodec.Header
        do {
            header = try readHeader(headerLine, path: path)
            reading.head = .header(header, unreadable: nil)
        } catch let error as BookmarkIndexError {
            // The batches are still read, as this library's schema (the header that named it
            // is gone); the scan reports line 1 as damage.
            header = .init(schemaVersion: plan.currentVersion, created: options.now(), compacted: nil, id: nil)
            reading.head = .header(header, unreadable: error)
        }
        if header.schemaVersion > plan.currentVersion {
            reading.head = .newer(version: header.schemaVersion)
            return reading
        }
        let migrating = header.schemaVersion < plan.currentVersion
        let checkpointExists = fileSystem.fileExists(atPath: directory + "/" + IndexCheckpoint.fileName)
        if migrating {
            reading.migratingFrom = header.schemaVersion
            if checkpointExists && usingCheckpoint {
                // Of the old file, in the old schema: the migrated journal gets a checkpoint of its own.
                reading.checkpointNotUsed = "the journal was at schema version \(header.schemaVersion), older than this library's \(plan.currentVersion): it was read whole and migrated, and the checkpoint of the old file was not used"
            }
        } else if usingCheckpoint {
            switch CheckpointPolicy.usableCheckpoint(directory: directory, header: header, journal: file, fileSystem: fileSystem, pool: options.ioPool) {
            case .none:
                break
            case .usable(let checkpoint, let coverage):
                reading.state = checkpoint
                reading.resumedAt = .init(coverage, header: header)
            case .unusable(let reason):
                reading.checkpointNotUsed = reason
            }
        }
        let decodeBatch = migrating ? try JournalMigrator.decoder(plan: plan, from: header.schemaVersion, path: path) : nil
        do {
            if try !reading.scan(file, fileSystem: fileSystem, pool: options.ioPool, decodeBatch: decodeBatch, limit: limit) {
                // Damage after a checkpoint: a checkpoint that does not fit the lines after it is no
                // evidence, so the journal is read again whole before anything is concluded.
                reading.checkpointNotUsed = "the journal's lines after the checkpoint do not follow it (damage, or a checkpoint that does not fit them); the journal was read whole"
                reading.resumedAt = nil
                reading.state = BookmarkIndexState()
                _ = try reading.scan(file, fileSystem: fileSystem, pool: options.ioPool, decodeBatch: decodeBatch, limit: limit)
            }
        } catch let failure as JournalScanner.ScanFailure {
            throw JournalMigrator.error(failure, plan: plan, path: path)
        }
        return reading
    }

    /// Scans from `resumedAt` (or the start); `false` when it met damage after a checkpoint and
    /// stopped.
    private mutating func scan(_ file: JournalFileHandle, fileSystem: any JournalFileSystem, pool: IOThreadPool, decodeBatch: JournalScanner.Decoder?, limit: Int?) throws -> Bool {
        struct DamageAfterCheckpoint: Error {}
        let resume = resumedAt
        damage = []
        goodLines = resume?.lines ?? 1
        batchesRead = 0
        var loader = IndexLoader(state), damage: [JournalDamage] = [], goodLines = self.goodLines, batches = 0
        do {
            scan = try JournalScanner.scan(file: file, fileSystem: fileSystem, pool: pool, decodeBatch: decodeBatch, resume: resume, limit: limit) { event in
                switch event {
                case .header:
                    break
                case .batch(_, let changes, _, _):
                    goodLines += 1
                    batches += 1
                    loader.apply(changes)
                case .damage(let found):
                    if resume != nil { throw DamageAfterCheckpoint() }
                    damage.append(found)
                }
            }
        } catch is DamageAfterCheckpoint {
            return false
        }
        state = loader.finish(on: pool)
        self.damage = damage
        self.goodLines = goodLines
        batchesRead = batches
        return true
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
}
