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
        let lines = Self.lines(of: batches, from: nextSequence)
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
        length += lines.count
        nextSequence += batches.count
        carried?.append(contentsOf: batches)
    }

    /// `batches` as their lines, numbered from `sequence`: what an append writes.
    static func lines(of batches: some Collection<[BookmarkChange]>, from sequence: Int) -> JSONWriter {
        var lines = JSONWriter(capacity: 512 * batches.reduce(0) { $0 + $1.count })
        for (offset, changes) in batches.enumerated() {
            JournalCodec.appendBatch(sequence: sequence + offset, changes, to: &lines)
        }
        return lines
    }

    /// Whether the journal has outgrown its threshold and no compaction runs.
    func isCompactionDue(minimumBytes: Int, growthFactor: Double) -> Bool {
        failure == nil && file != nil && carried == nil
            && length > max(minimumBytes, Int(Double(lengthAfterCompaction) * growthFactor))
    }

    /// After a new journal was renamed into place: closes the old file's handle (its file is
    /// gone), fsyncs the directory and opens the new file for appending. `compactedLength` is
    /// the part written whole (the growth threshold is measured from it); `length` may add the
    /// lines carried after it.
    mutating func reopen(after directory: String, length: Int, compactedLength: Int, nextSequence: Int) throws {
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
