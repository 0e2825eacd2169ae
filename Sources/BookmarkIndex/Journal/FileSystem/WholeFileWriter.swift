import BookmarkJSON
import Foundation

/// Writes a journal whole — at open (a fresh journal, a migration, a salvage), by compaction
/// and by reset: the state encoded as lines, written to a temporary file, fsynced, renamed over
/// the journal, the directory fsynced. A crash at any step leaves the complete old journal or
/// the complete new one.
enum WholeFileWriter {
    typealias Options = JournalStorage.Options
    static let journalFileName = JournalStorage.journalFileName
    static let temporaryFileName = JournalStorage.temporaryFileName

    struct Written {
        var file: JournalFileHandle
        var installed: Installed
    }

    /// A journal written whole.
    struct Installed {
        var length: Int
        var nextSequence: Int
        var id: UInt64
        var lastLineOffset: Int

        /// The checkpoint coverage of the whole file: its header and every batch.
        func coverage(schemaVersion: Int) -> IndexCheckpoint.Coverage {
            .init(
                schemaVersion: schemaVersion, journalID: id, length: length, lines: nextSequence,
                lastSequence: nextSequence - 1, lastLineOffset: lastLineOffset
            )
        }
    }

    /// Writes `state` as a complete journal and opens it for appending.
    static func writeJournal(
        _ state: BookmarkIndexState,
        compacted: Date?,
        directory: String,
        options: Options,
        keepingOldAs aside: String? = nil
    ) throws -> Written {
        let installed = try installJournal(state, compacted: compacted, directory: directory, options: options, keepingOldAs: aside)
        try options.fileSystem.synchronizeDirectory(atPath: directory)
        CheckpointPolicy.refreshCheckpoint(state, coverage: installed.coverage(schemaVersion: options.migrations.currentVersion), directory: directory, options: options)
        let file = try options.fileSystem.openForWriting(atPath: directory + "/" + journalFileName)
        return Written(file: file, installed: installed)
    }

    /// Writes `state` as a complete journal to the temporary file beside the journal and fsyncs
    /// it, leaving it open for more lines; returns it with what it holds. The lines of bookmarks
    /// (a thousand each) are encoded on the calling thread and on the pool's free threads, and
    /// each is written as soon as it and the lines before it are encoded (see
    /// ``IOThreadPool/map(_:_:consumingInOrder:)``), so the writing overlaps the encoding and
    /// the file is never held in memory whole. When this throws, the temporary file is gone and
    /// the journal untouched. Blocks.
    static func writeTemporary(
        _ state: BookmarkIndexState, compacted: Date?, directory: String, options: Options
    ) throws -> (file: JournalFileHandle, installed: Installed) {
        let fileSystem = options.fileSystem
        let temporaryPath = directory + "/" + temporaryFileName
        do {
            let file = try fileSystem.openForAppending(atPath: temporaryPath, truncating: true)
            do {
                var length = 0, lastLineOffset = 0, lines = 0
                func write(_ line: [UInt8]) throws {
                    try line.withUnsafeBytes { try fileSystem.write($0, to: file) }
                    lastLineOffset = length
                    length += line.count
                    lines += 1
                }
                let id = UInt64.random(in: .min ... .max)
                var header = JSONWriter(capacity: 256)
                JournalCodec.appendHeader(
                    .init(schemaVersion: options.migrations.currentVersion, created: options.now(), compacted: compacted, id: id),
                    to: &header
                )
                try write(header.takeBytes())
                let perLine = JournalStorage.rowsPerCompactedLine
                let rowLines = Restrict.allCases.flatMap { restrict in
                    let rows = state.rowsNewestFirst(in: restrict)
                    return stride(from: 0, to: rows.count, by: perLine).map { start in
                        (restrict, rows[start..<min(start + perLine, rows.count)])
                    }
                }
                let tags = JournalRowWriter.EncodedTags(state.tags.refs)
                let rowWriters = Restrict.allCases.map { JournalRowWriter(state, restrict: $0, tags: tags) }
                try options.ioPool.map(rowLines.count, { index in
                    let (restrict, rows) = rowLines[index]
                    // Room for a bookmark of about 600 bytes (the benchmark's) and then some, so
                    // that a line rarely grows.
                    var line = JSONWriter(capacity: 768 * rows.count)
                    rowWriters[restrict.listIndex].appendBatch(sequence: index + 1, rows: rows, to: &line)
                    return line.takeBytes()
                }, consumingInOrder: { _, line in try write(line) })
                let metadata = Restrict.allCases.compactMap { restrict -> BookmarkChange? in
                    let metadata = state.metadata(for: restrict)
                    return metadata == BookmarkIndexMetadata() ? nil : .setMetadata(metadata, for: restrict)
                }
                if !metadata.isEmpty {
                    var line = JSONWriter(capacity: 512)
                    JournalCodec.appendBatch(sequence: lines, metadata, to: &line)
                    try write(line.takeBytes())
                }
                try fileSystem.synchronize(file)
                return (file, Installed(length: length, nextSequence: lines, id: id, lastLineOffset: lastLineOffset))
            } catch {
                try? fileSystem.close(file)
                throw error
            }
        } catch {
            try? fileSystem.removeItem(atPath: temporaryPath)
            throw error
        }
    }

    /// Closes the fsynced temporary file `file` and renames it over the journal, first keeping
    /// the old journal as `aside` (a second name, made durable before the rename). When this
    /// throws, the temporary file is gone and the journal untouched; when it returns, the new
    /// one is in place (the caller still fsyncs the directory).
    static func install(_ file: JournalFileHandle, directory: String, fileSystem: any JournalFileSystem, keepingOldAs aside: String? = nil) throws {
        let temporaryPath = directory + "/" + temporaryFileName
        do {
            try fileSystem.close(file)
            if let aside {
                try fileSystem.linkItem(atPath: directory + "/" + journalFileName, toPath: aside)
                try fileSystem.synchronizeDirectory(atPath: directory)
            }
            try fileSystem.rename(atPath: temporaryPath, toPath: directory + "/" + journalFileName)
        } catch {
            try? fileSystem.removeItem(atPath: temporaryPath)
            throw error
        }
    }

    /// Writes `state` as a complete journal to the temporary file, fsyncs it and renames it
    /// over the journal (see ``install(_:directory:fileSystem:keepingOldAs:)``).
    static func installJournal(
        _ state: BookmarkIndexState,
        compacted: Date?,
        directory: String,
        options: Options,
        keepingOldAs aside: String? = nil
    ) throws -> Installed {
        let (file, installed) = try writeTemporary(state, compacted: compacted, directory: directory, options: options)
        try install(file, directory: directory, fileSystem: options.fileSystem, keepingOldAs: aside)
        return installed
    }
}
