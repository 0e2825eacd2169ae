import Foundation

// Writing a journal whole: at open, by compaction and by reset, and the snapshot beside it.

extension JournalStorage {
    // MARK: Writing whole journals

    struct Written {
        var file: JournalFileHandle
        var length: Int
        var nextSequence: Int
    }

    /// A journal written whole.
    struct Installed {
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
    static func writeJournal(
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
    static func installJournal(
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
                JournalCodec.appendBatch(sequence: sequence, slice.map(BookmarkChange.upsert), to: &writer)
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
    func replaceJournal(with state: BookmarkIndexState, writer: inout Writer) throws {
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
}
