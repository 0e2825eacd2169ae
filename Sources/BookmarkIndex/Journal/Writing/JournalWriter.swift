import BookmarkJSON
// The journal's writer: the open file and its lock, one batch appended at a time (cut back
// when a write or fsync fails), and the closing of both. Durable appends are written over room
// made ahead (JournalWriter+Room.swift).

/// The state of an open journal that only one thread at a time may touch (``JournalStorage``
/// keeps it behind a mutex). Every method blocks on the file system.
struct JournalWriter {
    var file: JournalFileHandle?
    var lock: JournalFileHandle?
    /// Where the last line ends: where the next one is written.
    var length: Int
    var nextSequence: Int
    var lengthAfterCompaction: Int
    /// Where the last line starts (0, the header's, when the file has no batch): with
    /// ``journalID``, ``length`` and ``nextSequence``, what a checkpoint of the file as it is
    /// names (``checkpointCoverage(schemaVersion:)``).
    var lastLineOffset: Int
    /// The `id` of the file's header; `nil` for a journal written before headers had one,
    /// which no checkpoint can name.
    var journalID: UInt64?
    /// The records the file's lines hold: the rows it was written whole with (or that the
    /// index held when it was opened), then every change appended. Set against the rows a
    /// compaction would write, what compacting would drop.
    var records: Int
    /// The bytes and the records of the lines this writer appended since the file was opened,
    /// compacted or reset: the bytes a record takes in the journal, which set against the
    /// file's length tell what was superseded even before it was opened.
    var appendedBytes = 0
    var appendedRecords = 0
    /// The state read at open, handed over once by `load()`.
    var loadedState: BookmarkIndexState?
    /// Set when the journal's file is in a state this writer can no longer vouch for.
    var failure: BookmarkIndexError?
    /// While a compaction writes the new file: the batches appended since it began, which
    /// it carries over into the new file.
    var carried: [[BookmarkChange]]?
    /// The bytes of spaces past `length` already on disk: room that durable appends write over
    /// (see ``appendDurably(_:to:)``). The file is `length + room` bytes long.
    var room = 0

    let path: String
    let fileSystem: any JournalFileSystem
    let durability: JournalStorage.Options.Durability

    /// Throws the failure that stopped this writer, or that it is closed.
    func checkWritable() throws {
        if let failure { throw failure }
        if file == nil {
            throw BookmarkIndexError(.closed, "The journal \(path) is closed; open a new store to write.")
        }
    }

    /// Appends one batch as one line: one `write`, then, when durable, an `fdatasync` (see
    /// ``appendDurably(_:to:)``). When either fails, the file is cut back to its last good
    /// length, so what failed is not on disk.
    mutating func append(_ changes: [BookmarkChange]) throws {
        try append(contentsOf: CollectionOfOne(changes))
    }

    /// Appends `batches` as one line each, in order, with one `write` and (when durable) one
    /// sync for them all: all of them are on disk, or (when a write or sync fails) none.
    mutating func append(contentsOf batches: some Collection<[BookmarkChange]>) throws {
        try checkWritable()
        guard let file, !batches.isEmpty else { return }
        let (lines, lastLineStart) = Self.linesMarkingLast(of: batches, from: nextSequence)
        do {
            try lines.withUnsafeBytes { bytes in
                if durability == .always {
                    try appendDurably(bytes, to: file)
                } else {
                    try fileSystem.write(bytes, to: file, at: length)
                    room = max(0, room - bytes.count)
                }
            }
        } catch {
            // If even cutting back fails, the file's end is unknown: this journal refuses
            // further writes until reopened.
            do {
                try fileSystem.truncate(file, toLength: length)
                room = 0
                if durability == .always { try fileSystem.synchronize(file) }
            } catch {
                failure = BookmarkIndexError(
                    .io, "The journal \(path) could not be cut back after a failed write; reopen the store to recover it.",
                    underlying: error
                )
            }
            let what = batches.count == 1 ? "batch \(nextSequence)" : "batches \(nextSequence) to \(nextSequence + batches.count - 1)"
            let outcome = batches.count == 1 ? "it was not stored" : "none of them was stored"
            throw BookmarkIndexError(.io, "Could not append \(what) to \(path); \(outcome).", underlying: error)
        }
        lastLineOffset = length + lastLineStart
        length += lines.count
        nextSequence += batches.count
        let appended = batches.reduce(0) { $0 + $1.count }
        records += appended
        appendedRecords += appended
        appendedBytes += lines.count
        carried?.append(contentsOf: batches)
    }

    /// `batches` as their lines, numbered from `sequence`: what an append writes.
    static func lines(of batches: some Collection<[BookmarkChange]>, from sequence: Int) -> JSONWriter {
        linesMarkingLast(of: batches, from: sequence).lines
    }

    /// ``lines(of:from:)``, and where in them the last line starts.
    static func linesMarkingLast(of batches: some Collection<[BookmarkChange]>, from sequence: Int) -> (lines: JSONWriter, lastLineStart: Int) {
        var lines = JSONWriter(capacity: 512 * batches.reduce(0) { $0 + $1.count })
        var lastLineStart = 0
        for (offset, changes) in batches.enumerated() {
            lastLineStart = lines.count
            JournalCodec.appendBatch(sequence: sequence + offset, changes, to: &lines)
        }
        return (lines, lastLineStart)
    }

    /// The checkpoint coverage of the file as it is, every line of it; `nil` when its header
    /// has no `id`.
    func checkpointCoverage(schemaVersion: Int) -> IndexCheckpoint.Coverage? {
        journalID.map { id in
            IndexCheckpoint.Coverage(
                schemaVersion: schemaVersion, journalID: id, length: length, lines: nextSequence,
                lastSequence: nextSequence - 1, lastLineOffset: lastLineOffset
            )
        }
    }

    /// Whether the journal has outgrown its threshold and no compaction runs.
    func isCompactionDue(minimumBytes: Int, growthFactor: Double) -> Bool {
        failure == nil && file != nil && carried == nil
            && length > max(minimumBytes, Int(Double(lengthAfterCompaction) * growthFactor))
    }

    /// After a new journal was renamed into place: closes the old file's handle (its file is
    /// gone), fsyncs the directory and opens the new file for appending. `compactedLength` is
    /// the part written whole (the growth threshold is measured from it); `length` may add the
    /// lines carried after it, the last of which starts at `lastLineOffset`; the file's header
    /// has `id`, and its lines hold `records` records.
    mutating func reopen(
        after directory: String, length: Int, compactedLength: Int, nextSequence: Int, lastLineOffset: Int, id: UInt64, records: Int
    ) throws {
        if let old = file { try? fileSystem.close(old) }
        file = nil
        room = 0
        do {
            try fileSystem.synchronizeDirectory(atPath: directory)
            file = try fileSystem.openForWriting(atPath: path)
        } catch {
            let failure = BookmarkIndexError(
                .io, "The compacted journal \(path) is in place but could not be made durable or reopened; reopen the store.",
                underlying: error
            )
            self.failure = failure
            throw failure
        }
        self.length = length
        self.lengthAfterCompaction = compactedLength
        self.nextSequence = nextSequence
        self.lastLineOffset = lastLineOffset
        self.journalID = id
        self.records = records
        appendedBytes = 0
        appendedRecords = 0
    }

    /// Cuts off the room, then closes the file and releases the lock, both whatever happens to
    /// the first.
    mutating func close() throws {
        let file = self.file, lock = self.lock
        if let file { cutRoom(file) }
        self.file = nil
        self.lock = nil
        var failure: (any Error)?
        if let file { do { try fileSystem.close(file) } catch { failure = error } }
        if let lock { do { try fileSystem.close(lock) } catch { failure = failure ?? error } }
        if let failure { throw failure }
    }
}
