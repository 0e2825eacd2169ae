import Dispatch
import BookmarkJSON
import Foundation
import Synchronization

/// Walks the lines of a journal, deciding for each whether it is the header, a good batch, a
/// torn tail or damage. Shared by open (which acts on what it finds), verify (which only
/// reports) and migration (which decodes older records).
///
/// The file is read in groups of blocks of whole lines. The blocks of a group are decoded in
/// parallel in the background, while the caller's thread puts the previous group's results in
/// order: it numbers the lines, checks the sequence and calls `onEvent` in file order. Memory
/// stays bounded by three groups (one decoding, one replaying, one waiting to be freed), not
/// the file's size.
struct JournalScanner {
    enum Event {
        case header(JournalCodec.Header)
        /// A good batch, its changes prepared for the index (``BookmarkIndexState/apply(_:changes:tagRefs:)``).
        case batch(sequence: Int, changes: PreparedRows.Batch, line: Int, offset: Int)
        /// A line that fails to read and is not the last one; or a sequence gap.
        case damage(JournalDamage)
    }

    struct Result {
        /// The unreadable last line, if any: `offset` is where the file should be cut.
        var tornTail: JournalDamage?
        /// The length of the file up to the end of its last good line.
        var goodLength: Int
        /// The bytes of room at the end of the file, after the last line or a torn tail: spaces
        /// written ahead for durable appends, which a clean close cuts off (see
        /// ``JournalWriter/room``). Not part of a torn tail's bytes, nor of the journal's.
        var room = 0
        /// Where the last good line starts.
        var lastGoodLineStart: Int
        var lastSequence: Int
        var header: JournalCodec.Header?
        /// The file's length.
        var length: Int
    }

    /// How to turn a batch line's bytes into changes (its checksum already verified).
    typealias Decoder = @Sendable (_ line: UnsafeRawBufferPointer) throws -> [BookmarkChange]

    /// The lines of a block, decoded, and the changes of its batches.
    struct DecodedBlock: Sendable {
        var lines: [DecodedLine] = []
        var rows: PreparedRows
    }

    /// One line of a block, decoded.
    struct DecodedLine: Sendable {
        enum Outcome: Sendable {
            case header(JournalCodec.Header)
            /// A batch: these of its block's changes.
            case batch(sequence: Int, changes: Range<Int>)
            case unreadable(String)
            case fatal(any Error)
        }

        var start: Int
        var end: Int
        var outcome: Outcome
    }

    /// A compacted journal's lines are some 600 kB (a thousand rows): a block holds several, so
    /// that the tags its rows share are looked up in the index's table once a block (three
    /// alternating runs of seven opens of the 100k journal read whole: medians 282–343 ms with
    /// 4 MB blocks, 290–359 with 1 MB; within this machine's noise, but not slower). A scan holds
    /// at most three groups of two: 24 MB of lines, besides their rows.
    static let blockSize = 4 << 20
    /// Blocks read, then decoded in parallel, at a time: what bounds the memory a scan needs.
    private static let blocksPerGroup = 2

    /// Where a scan starts when the first lines are already known (from a checkpoint).
    struct Resume {
        /// The header of the file, as read before.
        var header: JournalCodec.Header
        /// The length of the lines known, through a newline: where reading starts.
        var offset: Int
        /// How many lines are known, header included.
        var lines: Int
        /// The sequence number of the last batch known.
        var lastSequence: Int
        /// Where the last line known starts.
        var lastLineOffset: Int

        /// Resuming after the lines `coverage` says a checkpoint covers.
        init(_ coverage: IndexCheckpoint.Coverage, header: JournalCodec.Header) {
            self.header = header
            offset = coverage.length
            lines = coverage.lines
            lastSequence = coverage.lastSequence
            lastLineOffset = coverage.lastLineOffset
        }
    }

    /// Scans the journal at `path` from its start; `nil` when there is no file.
    static func scan(
        path: String,
        fileSystem: any JournalFileSystem,
        pool: IOThreadPool,
        decodeBatch: Decoder? = nil,
        onEvent: (Event) throws -> Void
    ) throws -> Result? {
        guard let file = try fileSystem.openForReading(atPath: path) else { return nil }
        defer { try? fileSystem.close(file) }
        return try scan(file: file, fileSystem: fileSystem, pool: pool, decodeBatch: decodeBatch, onEvent: onEvent)
    }

    /// Scans the journal open as `file`, from its start or from `resume`, to its end or to the
    /// byte offset `limit` (as if the file ended there).
    static func scan(
        file: JournalFileHandle,
        fileSystem: any JournalFileSystem,
        pool: IOThreadPool,
        decodeBatch: Decoder? = nil,
        resume: Resume? = nil,
        limit: Int? = nil,
        onEvent: (Event) throws -> Void
    ) throws -> Result {
        var sequencer = Sequencer()
        var carry: [UInt8] = []
        var offset = 0
        try fileSystem.seek(file, toOffset: resume?.offset ?? 0)
        if let resume {
            offset = resume.offset
            sequencer.lineNumber = resume.lines
            sequencer.result.header = resume.header
            sequencer.result.lastSequence = resume.lastSequence
            sequencer.result.goodLength = resume.offset
            sequencer.result.lastGoodLineStart = resume.lastLineOffset
        }
        /// Reads the next group of blocks of whole lines; an empty group means the end.
        func readGroup() throws -> DecodingGroup {
            var blocks: [DecodingGroup.Block] = []
            while blocks.count < blocksPerGroup {
                let wanted = limit.map { max(0, min(blockSize, $0 - offset - carry.count)) } ?? blockSize
                if wanted == 0 { break }
                // The line cut short at the end of the last block, then the next block read after
                // it: the block's bytes are read once into the buffer they are decoded from.
                var count = 0
                let bytes = try [UInt8](unsafeUninitializedCapacity: carry.count + wanted) { buffer, initialized in
                    let start = buffer.initialize(fromContentsOf: carry)
                    initialized = start
                    count = try fileSystem.read(file, into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[start...])))
                    initialized = start + count
                }
                if count == 0 { break }
                guard let lastNewline = bytes.withUnsafeBytes({ Self.lastIndex(of: 0x0A, in: $0) }) else {
                    carry = bytes
                    continue
                }
                blocks.append(DecodingGroup.Block(base: offset, bytes: bytes, length: lastNewline + 1))
                offset += lastNewline + 1
                carry = Array(bytes[(lastNewline + 1)...])
            }
            return DecodingGroup(blocks: blocks, decodeBatch: decodeBatch, pool: pool)
        }

        // While the caller's thread replays one group, the next is already being decoded.
        var current = try readGroup()
        current.start()
        var freeing: PooledWork<Void>?
        while true {
            let next = current.isEmpty ? nil : try readGroup()
            next?.start()
            let isFinal = next?.isEmpty ?? true
            let results = current.wait()
            for (index, block) in results.enumerated() {
                try sequencer.consume(block, isFinal: isFinal && index == results.count - 1, tail: carry, onEvent: onEvent)
            }
            if results.isEmpty {
                try sequencer.consume(DecodedBlock(rows: PreparedRows()), isFinal: true, tail: carry, onEvent: onEvent)
            }
            // The changes replayed are freed by a pool job, not here: freed here, each of the
            // allocations another thread decoded would take that thread's malloc arena lock
            // while it allocates the next group's (glibc: in opens of a 110 MB journal, 9.6 % of
            // the samples were in that lock's futex calls, 0.5 % with the job). The job runs on
            // whichever thread gets to it first, this one included (in `wait()`). One group at
            // most waits to be freed.
            try? freeing?.wait()
            let decoded = Decoded(consume results)
            freeing = pool.start { decoded.free() }
            guard let next, !isFinal else { break }
            current = next
        }
        try? freeing?.wait()
        return sequencer.result(length: offset + carry.count)
    }

    /// A replayed group's decoded lines, on their way to be freed.
    private final class Decoded: Sendable {
        private let lines: Mutex<[DecodedBlock]>

        init(_ lines: consuming [DecodedBlock]) {
            self.lines = Mutex(lines)
        }

        /// Frees the lines, on this thread.
        func free() {
            lines.withLock { $0 = [] }
        }
    }

    /// A group of blocks decoded in parallel, in the background, on the pool's threads.
    private final class DecodingGroup: Sendable {
        /// Whole lines of the journal: `bytes[..<length]`, from the offset `base`.
        struct Block {
            var base: Int
            var bytes: [UInt8]
            var length: Int
        }

        let blocks: [Block]
        let decodeBatch: Decoder?
        let pool: IOThreadPool
        private let decoded: Mutex<[DecodedBlock]>
        private let workers = Mutex<[PooledWork<Void>]>([])

        init(blocks: [Block], decodeBatch: Decoder?, pool: IOThreadPool) {
            self.blocks = blocks
            self.decodeBatch = decodeBatch
            self.pool = pool
            self.decoded = Mutex(Array(repeating: DecodedBlock(rows: PreparedRows()), count: blocks.count))
        }

        var isEmpty: Bool { blocks.isEmpty }

        /// Starts decoding, as two pieces of work on the pool (a piece no thread has started
        /// when ``wait()`` comes runs on the waiting thread).
        func start() {
            guard !blocks.isEmpty else { return }
            let count = min(2, blocks.count)
            let started = (0..<count).map { worker in
                pool.start {
                    for index in stride(from: worker, to: self.blocks.count, by: count) {
                        let block = self.blocks[index]
                        let lines = block.bytes.withUnsafeBytes {
                            JournalScanner.decodeBlock(UnsafeRawBufferPointer(rebasing: $0[..<block.length]), base: block.base, decodeBatch: self.decodeBatch)
                        }
                        self.decoded.withLock { $0[index] = lines }
                    }
                }
            }
            workers.withLock { $0 = started }
        }

        /// The decoded blocks, in order, once they are ready.
        func wait() -> [DecodedBlock] {
            let started = workers.withLock { $0 }
            // Work no pool thread has taken yet runs here first, then the rest is waited for.
            for worker in started { worker.runIfPending() }
            for worker in started { try? worker.wait() }
            // Taken out, so that the caller holds the only reference.
            return decoded.withLock { decoded in
                var taken: [DecodedBlock] = []
                swap(&taken, &decoded)
                return taken
            }
        }
    }

    /// Decodes the complete lines of a block (`base` is the block's offset in the file): the
    /// batches of this library's schema by ``JournalRowDecoder``, anything else by the codec (or,
    /// for an older schema, by `decodeBatch`).
    fileprivate static func decodeBlock(_ bytes: UnsafeRawBufferPointer, base: Int, decodeBatch: Decoder?) -> DecodedBlock {
        var block = DecodedBlock(rows: PreparedRows(origin: base, reservingFor: bytes.count))
        var rowDecoder = JournalRowDecoder()
        var cache: DecodingCache? = DecodingCache()
        var start = 0
        while start < bytes.count, let newline = firstIndex(of: 0x0A, in: bytes, from: start) {
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<newline])
            let first = block.rows.changes.count
            let outcome: DecodedLine.Outcome
            do {
                try JournalCodec.verifyChecksum(line)
                if let decodeBatch, base + start > 0 {
                    let sequence = try sequenceNumber(line)
                    for change in try decodeBatch(line) { block.rows.append(change) }
                    outcome = .batch(sequence: sequence, changes: first..<block.rows.changes.count)
                } else if base + start > 0, let sequence = rowDecoder.decodeBatch(line, into: &block.rows) {
                    outcome = .batch(sequence: sequence, changes: first..<block.rows.changes.count)
                } else {
                    switch try JournalCodec.decodeVerifiedLine(line, cache: &cache) {
                    case .header(let header): outcome = .header(header)
                    case .batch(let sequence, let changes):
                        for change in changes { block.rows.append(change) }
                        outcome = .batch(sequence: sequence, changes: first..<block.rows.changes.count)
                    }
                }
            } catch JournalCodec.LineError.checksumMismatch(let expected, let actual) {
                outcome = .unreadable("checksum mismatch (crc \(hex(expected)) in the line, \(hex(actual)) computed)")
            } catch JournalCodec.LineError.malformed(let error) {
                outcome = .unreadable("unreadable at byte \(error.offset) of the line: \(error.message)")
            } catch let error as JSONReadError {
                outcome = .unreadable("unreadable at byte \(error.offset) of the line: \(error.message)")
            } catch {
                outcome = .fatal(error)
            }
            block.lines.append(DecodedLine(start: base + start, end: base + newline + 1, outcome: outcome))
            start = newline + 1
        }
        return block
    }

    static func sequenceNumber(_ line: UnsafeRawBufferPointer) throws -> Int {
        var reader = JSONReader(line)
        var sequence: Int?
        try reader.readObject { reader, key in
            if key.equals("seq") { sequence = try reader.readInt() } else { try reader.skipValue() }
        }
        guard let sequence else { throw JSONReadError(offset: 0, message: "the batch has no seq") }
        return sequence
    }

    /// A decode that stopped the scan, with the line it happened on.
    struct ScanFailure: Error {
        var line: Int
        var underlying: any Error
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
