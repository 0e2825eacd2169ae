import BookmarkJSON
import Foundation

/// The checkpoint: the in-memory index of a journal's first lines, written whole so that
/// open reads it back instead of replaying those lines.
///
/// The journal stays the only record: the checkpoint is a cache of what replaying its first
/// ``Coverage/lines`` lines gives, for the one journal file whose header carries
/// ``Coverage/journalID``. Open uses it only when that journal is the one in place and at least
/// ``Coverage/length`` bytes long, then replays the lines after it; any other checkpoint, a
/// damaged one, or one from a build that lays rows out differently is ignored, and the journal
/// replayed whole. It is written after compaction (when the journal is already durable), so it
/// needs no fsync: a checkpoint cut short by a crash fails its checksum and is ignored.
///
/// Layout (native byte order, which the header checks): a header with the coverage, each
/// section's size and XXH64, and the header's own XXH64; then the sections — the tag table, the
/// sync metadata (as the journal's JSON), then for each list a few counts, its rows (fixed-size
/// records), free slots, tag arena, tag counts, postings, order and text arena. Every array is written and read
/// as its raw bytes, so reading is a few large `read`s, the checksums, and bounds checks.
enum IndexCheckpoint {
    static let fileName = "index.snapshot"
    static let temporaryFileName = "index.snapshot.tmp"

    /// Which journal the checkpoint is of, and how much of it.
    struct Coverage: Equatable, Sendable {
        /// The journal's schema version.
        var schemaVersion: Int
        /// The `id` of the journal's header.
        var journalID: UInt64
        /// The bytes of the journal covered: its header and first lines, through a newline.
        var length: Int
        /// The lines covered, header included.
        var lines: Int
        /// The sequence number of the last batch covered (0 for none).
        var lastSequence: Int
        /// Where the last line covered starts (0, the header's, when no batch is covered): open
        /// reads that line back and checks it is batch ``lastSequence``.
        var lastLineOffset: Int
    }

    /// Why a checkpoint cannot be used.
    struct Unusable: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// A checkpoint its reader's `refusal` turned down.
    struct Refused: Error {
        var reason: String
    }

    private static let magic: [UInt8] = Array("BMIXSNAP".utf8)
    /// 3: rows keep the view count (``ListIndex/Row/totalView``). 4: the text arena keeps
    /// thumbnails coded (``ThumbnailCode``). A file of an earlier format is ignored and the
    /// journal replayed.
    private static let formatVersion: UInt32 = 4
    private static let byteOrderMark: UInt32 = 0x0102_0304
    private static let listSectionCount = 9
    private static let sectionCount = 2 + 2 * listSectionCount

    // MARK: Writing

    /// Writes `state` (what replaying the journal `coverage` describes gives) to `path`,
    /// through a temporary file renamed over it.
    static func write(
        _ state: BookmarkIndexState,
        coverage: Coverage,
        directory: String,
        fileSystem: any JournalFileSystem
    ) throws {
        // The arrays are written from where they are, not copied.
        var sections: [CheckpointSection] = []
        sections.append(CheckpointSection(encodeTags(state.tags.refs)))
        sections.append(CheckpointSection(encodeMetadata(state)))
        for list in state.lists {
            let parts = list.parts
            sections.append(CheckpointSection([parts.garbageText, parts.garbageTags, Int(parts.nextStamp)].map(Int64.init)))
            sections.append(CheckpointSection(parts.slots))
            sections.append(CheckpointSection(parts.freeSlots))
            sections.append(CheckpointSection(parts.tagRefs))
            sections.append(CheckpointSection(parts.tagCounts))
            sections.append(CheckpointSection(parts.postingCounts))
            sections.append(CheckpointSection(parts.postingSlots))
            sections.append(CheckpointSection(parts.order))
            // The largest section last: the checks of the others run while it is read.
            sections.append(CheckpointSection(parts.text))
        }
        precondition(sections.count == sectionCount)

        var header = HeaderWriter()
        header.append(magic)
        header.append(formatVersion)
        header.append(byteOrderMark)
        header.append(ListIndex.Row.layoutFingerprint)
        for value in [coverage.schemaVersion, coverage.length, coverage.lines, coverage.lastSequence, coverage.lastLineOffset, sections.count] {
            header.append(Int64(value))
        }
        header.append(coverage.journalID)
        for section in sections { header.append(Int64(section.size)) }
        for section in sections { header.append(section.hash) }
        header.append(header.bytes.withUnsafeBytes { XXH64.hash($0) })

        let temporaryPath = directory + "/" + temporaryFileName
        do {
            let file = try fileSystem.openForAppending(atPath: temporaryPath, truncating: true)
            do {
                try header.bytes.withUnsafeBytes { try fileSystem.write($0, to: file) }
                for section in sections {
                    try section.write { if !$0.isEmpty { try fileSystem.write($0, to: file) } }
                }
            } catch {
                try? fileSystem.close(file)
                throw error
            }
            try fileSystem.close(file)
            // Renaming over the old one makes ext4 write the new one out inside the rename (20 ms
            // at 100,000); a crash after the removal only costs the next open a whole replay.
            try? fileSystem.removeItem(atPath: directory + "/" + fileName)
            try fileSystem.rename(atPath: temporaryPath, toPath: directory + "/" + fileName)
        } catch {
            try? fileSystem.removeItem(atPath: temporaryPath)
            throw error
        }
    }

    // MARK: Reading

    /// Reads the checkpoint in `directory`: `nil` when there is none.
    ///
    /// `refusal` sees the coverage as soon as the header is read and checked, before any
    /// section: it returns why the checkpoint is not wanted (it is of another journal, say), or
    /// `nil` to read on.
    ///
    /// - Throws: ``Unusable`` when it is damaged, cut short, from a build that lays rows out
    ///   differently, or inconsistent; ``Refused`` when `refusal` turns it down; an I/O error as
    ///   thrown by `fileSystem` (or `refusal`).
    static func read(
        directory: String,
        fileSystem: any JournalFileSystem,
        pool: IOThreadPool,
        refusal: (Coverage) throws -> String? = { _ in nil }
    ) throws -> (state: BookmarkIndexState, coverage: Coverage)? {
        guard let file = try fileSystem.openForReading(atPath: directory + "/" + fileName) else { return nil }
        defer { try? fileSystem.close(file) }
        let reader = FileReader(file: file, fileSystem: fileSystem)

        let fixedHeaderSize = 8 + 4 + 4 + 8 + 6 * 8 + 8
        let fixed: [UInt8] = try reader.read(count: fixedHeaderSize)
        var header = HeaderReader(bytes: fixed)
        guard header.bytes(8) == magic else { throw Unusable(reason: "it is not a checkpoint") }
        guard header.uint32() == formatVersion else { throw Unusable(reason: "it is in another checkpoint format") }
        guard header.uint32() == byteOrderMark else { throw Unusable(reason: "it was written in another byte order") }
        guard header.uint64() == ListIndex.Row.layoutFingerprint else {
            throw Unusable(reason: "it was written by a build that lays rows out differently")
        }
        let schemaVersion = Int(header.int64()), length = Int(header.int64()), lines = Int(header.int64())
        let lastSequence = Int(header.int64()), lastLineOffset = Int(header.int64()), count = Int(header.int64())
        let journalID = header.uint64()
        guard count == sectionCount else { throw Unusable(reason: "it has \(count) sections, not \(sectionCount)") }
        let table: [UInt8] = try reader.read(count: 16 * count + 8)
        let headerBytes = fixed + table
        let storedHeaderHash = headerBytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: headerBytes.count - 8, as: UInt64.self) }
        guard headerBytes.withUnsafeBytes({ XXH64.hash(UnsafeRawBufferPointer(rebasing: $0.dropLast(8))) }) == storedHeaderHash else {
            throw Unusable(reason: "its header fails its checksum")
        }
        // A journal's batches are numbered 1, 2, … after its header, each line at least a byte:
        // anything else is not a coverage any journal has (and could overflow the replay).
        guard lines >= 1, length >= lines, length <= Int(Int32.max) << 16, lastSequence == lines - 1,
              (0..<length).contains(lastLineOffset), (lastSequence == 0) == (lastLineOffset == 0) else {
            throw Unusable(reason: "its coverage (\(length) bytes, \(lines) lines, last batch \(lastSequence) at \(lastLineOffset)) is not one a journal has")
        }
        let coverage = Coverage(
            schemaVersion: schemaVersion, journalID: journalID, length: length, lines: lines,
            lastSequence: lastSequence, lastLineOffset: lastLineOffset
        )
        if let reason = try refusal(coverage) { throw Refused(reason: reason) }
        header = HeaderReader(bytes: table)
        let sizes = (0..<count).map { _ in Int(header.int64()) }
        let hashes = (0..<count).map { _ in header.uint64() }
        // The sizes must add up to the file, so that no section asks for more memory than the
        // file holds.
        var total = headerBytes.count
        for size in sizes {
            guard size >= 0, case (let sum, false) = total.addingReportingOverflow(size) else {
                throw Unusable(reason: "its section sizes are not a file's")
            }
            total = sum
        }
        guard try reader.hasLength(total) else { throw Unusable(reason: "its length is not the sum of its sections (cut short, or bytes after them)") }
        try fileSystem.seek(file, toOffset: headerBytes.count)
        var section = 0
        func next<Element: BitwiseCopyable>(_: Element.Type) throws -> [Element] {
            defer { section += 1 }
            let size = sizes[section]
            guard size % MemoryLayout<Element>.stride == 0 else {
                throw Unusable(reason: "section \(section) has a size of \(size) bytes")
            }
            let array: [Element] = try reader.read(count: size / MemoryLayout<Element>.stride)
            guard array.withUnsafeBytes({ XXH64.hash($0) }) == hashes[section] else {
                throw Unusable(reason: "section \(section) fails its checksum (damaged or cut short)")
            }
            return array
        }

        // Rebuilding the tag table and indexing each list's rows run on the pool's other threads
        // while the rest is read (or on this one, when it waits for work no thread took).
        let tagBytes = try next(UInt8.self)
        let tagTable = pool.start { () throws -> TagTable in
            guard let table = TagTable(refs: try decodeTags(tagBytes)) else {
                throw Unusable(reason: "its tag table holds a tag twice")
            }
            return table
        }
        let metadata = try decodeMetadata(try next(UInt8.self))
        struct PendingList {
            var parts: ListIndex.Parts
            var rows: PooledWork<ListIndex.IndexedRows>
            var tagIndex: PooledWork<ListIndex.TagIndex>
            var leaders: PooledWork<SortLeaders>
        }
        var lists: [PendingList] = []
        for restrict in Restrict.allCases {
            let scalars = try next(Int64.self)
            guard scalars.count == 3 else { throw Unusable(reason: "section \(section - 1) has \(scalars.count) numbers, not 3") }
            var parts = ListIndex.Parts()
            // The arenas' sizes are known before they are read: the counts of their garbage and
            // the rows' ranges can be checked now.
            let textCount = sizes[section + 7], tagRefCount = sizes[section + 2] / MemoryLayout<TagRefID>.stride
            guard (0...Int64(textCount)).contains(scalars[0]), (0...Int64(tagRefCount)).contains(scalars[1]), (0...Int64(UInt32.max)).contains(scalars[2]) else {
                throw Unusable(reason: "its \(restrict.rawValue) list's counts are out of range")
            }
            parts.garbageText = Int(scalars[0])
            parts.garbageTags = Int(scalars[1])
            parts.nextStamp = UInt32(scalars[2])
            parts.slots = try next(ListIndex.Row.self)
            let rows = pool.start { [slots = parts.slots] in
                try ListIndex.indexRows(slots, textCount: textCount, tagRefCount: tagRefCount)
            }
            // A pass over the rows per sort, safe over any rows: chosen while the rest is checked.
            let leaders = pool.start { [slots = parts.slots] in SortLeaders(rows: slots) }
            parts.freeSlots = try next(Int32.self)
            parts.tagRefs = try next(TagRefID.self)
            parts.tagCounts = try next(Int32.self)
            parts.postingCounts = try next(Int32.self)
            parts.postingSlots = try next(Int32.self)
            parts.order = try next(OrderList.Entry.self)
            // Checked against the rows and the tag table (once it is built) while the text reads.
            let tagIndex = pool.start { [parts] in
                try ListIndex.checkSlots(parts)
                try ListIndex.checkOrder(parts.order, slots: parts.slots)
                return try ListIndex.checkedTagIndex(parts, tags: try tagTable.wait())
            }
            parts.text = try next(UInt8.self)
            lists.append(PendingList(parts: parts, rows: rows, tagIndex: tagIndex, leaders: leaders))
        }

        var state = BookmarkIndexState()
        state.tags = try tagTable.wait()
        for (index, restrict) in Restrict.allCases.enumerated() {
            let list = lists[index]
            do {
                state.lists[index] = try ListIndex(parts: list.parts, rows: list.rows.wait(), tagIndex: list.tagIndex.wait(), leaders: list.leaders.wait())
            } catch let error as ListIndex.InconsistentParts {
                throw Unusable(reason: "its \(restrict.rawValue) list is inconsistent: \(error.reason)")
            }
            state.metadataByList[index] = metadata[index]
        }
        return (state, coverage)
    }

    // MARK: Byte plumbing

    private struct HeaderWriter {
        var bytes: [UInt8] = []
        mutating func append(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }
        mutating func append<Value: FixedWidthInteger>(_ value: Value) {
            withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
        }
    }

    private struct HeaderReader {
        let bytes: [UInt8]
        var offset = 0
        mutating func bytes(_ count: Int) -> [UInt8] {
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }
        mutating func value<Value: FixedWidthInteger>(_: Value.Type) -> Value {
            defer { offset += MemoryLayout<Value>.size }
            return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Value.self) }
        }
        mutating func uint32() -> UInt32 { value(UInt32.self) }
        mutating func uint64() -> UInt64 { value(UInt64.self) }
        mutating func int64() -> Int64 { value(Int64.self) }
    }

    /// Reads exact counts of elements straight into new arrays.
    private struct FileReader {
        let file: JournalFileHandle
        let fileSystem: any JournalFileSystem

        func read<Element: BitwiseCopyable>(count: Int) throws -> [Element] {
            guard let array: [Element] = try fileSystem.readArray(file, count: count) else { throw Unusable(reason: "it is cut short") }
            return array
        }

        /// Whether the file is exactly `length` bytes long (at least one): two one-byte reads at
        /// its would-be end, not a read of the whole file. Leaves the position at the end.
        func hasLength(_ length: Int) throws -> Bool {
            try fileSystem.seek(file, toOffset: length - 1)
            var byte: UInt8 = 0
            guard try withUnsafeMutableBytes(of: &byte, { try fileSystem.read(file, into: $0) }) == 1 else { return false }
            return try withUnsafeMutableBytes(of: &byte) { try fileSystem.read(file, into: $0) } == 0
        }
    }
}

/// An array the checkpoint writes as its raw bytes, with its size and checksum.
private struct CheckpointSection {
    let size: Int
    let hash: UInt64
    let write: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void

    init<Element: BitwiseCopyable>(_ array: [Element]) {
        size = array.count * MemoryLayout<Element>.stride
        hash = array.withUnsafeBytes { XXH64.hash($0) }
        write = { body in try array.withUnsafeBytes(body) }
    }
}
