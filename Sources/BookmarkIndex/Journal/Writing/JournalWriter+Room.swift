// Durable appends over room made ahead: spaces written past the last line and fsynced a chunk
// at a time, so that each batch is a write over bytes already on disk and an `fdatasync`,
// which commits no metadata. Appending and fsyncing costs a file-system journal commit for
// the new length each time: on this project's test machine (ext4), writing a sync's batch
// lines over room took 0.60-0.65 of that (`append_durable`'s `overwrite_floor_ratio`).

extension JournalWriter {
    /// How much room is made at a time, and the most bytes of lines written over it at once
    /// (a longer line is written alone): a crash can leave pieces of one such write between
    /// the last line and the room, and the scan knows them by that bound
    /// (``JournalScanner/Result/tornTail``).
    static let roomChunk = 256 << 10

    /// A chunk of spaces, written as room.
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: roomChunk)

    /// Writes `bytes` (whole lines) at the journal's end, durably: in pieces of whole lines of
    /// at most ``roomChunk`` bytes (or one longer line), each over room (made first when short,
    /// so that at least a byte of room follows the piece), each made durable before the next.
    mutating func appendDurably(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle) throws {
        var start = 0
        while start < bytes.count {
            let end = Self.pieceEnd(bytes, from: start)
            if end - start >= room - start {
                try makeRoom(in: file, through: length + end + 1)
            }
            try fileSystem.write(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), to: file, at: length + start)
            try fileSystem.synchronizeData(file)
            start = end
        }
        room -= bytes.count
    }

    /// Where the piece of `bytes` that begins at `start` ends: after the last newline within
    /// ``roomChunk`` bytes, or after the line's own newline when the line is longer.
    static func pieceEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let limit = start + roomChunk
        guard limit < bytes.count else { return bytes.count }
        if let newline = JournalScanner.lastIndex(of: 0x0A, in: UnsafeRawBufferPointer(rebasing: bytes[start..<limit])) {
            return start + newline + 1
        }
        return (JournalScanner.firstIndex(of: 0x0A, in: bytes, from: limit) ?? bytes.count - 1) + 1
    }

    /// Writes spaces from the file's end to the first multiple of ``roomChunk`` at or after
    /// `offset`, and fsyncs the file, its new length with it.
    private mutating func makeRoom(in file: JournalFileHandle, through offset: Int) throws {
        let end = (offset + Self.roomChunk - 1) / Self.roomChunk * Self.roomChunk
        var at = length + room
        while at < end {
            let count = min(Self.spaces.count, end - at)
            try Self.spaces.withUnsafeBytes { try fileSystem.write(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: file, at: at) }
            at += count
        }
        try fileSystem.synchronize(file)
        room = end - length
    }

    /// Cuts the room off the file, so that a journal at rest ends with its last line. Not
    /// fsynced, and a failure is let go: room left behind is cut by the next open.
    mutating func cutRoom(_ file: JournalFileHandle) {
        guard room > 0 else { return }
        try? fileSystem.truncate(file, toLength: length)
        room = 0
    }
}
