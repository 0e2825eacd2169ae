// Durable appends over room made ahead: spaces written past the last line and fsynced a chunk
// at a time, so that each batch is a write over bytes already on disk and an `fdatasync`,
// which commits no metadata. Appending and fsyncing costs a file-system journal commit for
// the new length each time: on this project's test machine (ext4), writing a sync's batch
// lines over room took 0.53-0.65 of that (`append_durable`'s `overwrite_floor_ratio`).

extension JournalWriter {
    /// How much room is made at a time, and the most bytes written over room at once: a
    /// crash can leave pieces of one such write between the last line and the room, and the
    /// scan knows them by that bound (``JournalScanner/Sequencer``). Longer writes (a group of
    /// batches, a batch of thousands of bookmarks) are appended as before room.
    static let roomChunk = 256 << 10

    /// The least room left after a write over it: a file that ends with room ends with at
    /// least this many spaces (or zeros), which no line cut short by a crash does.
    static let minimumRoom = 4 << 10

    /// A chunk of spaces, written as room.
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: roomChunk)

    /// Writes `bytes` (whole lines) at the journal's end, durably. Up to ``roomChunk`` bytes go
    /// over room (made first when less than ``minimumRoom`` would be left), then `fdatasync`.
    /// More go as an append once the room is cut off (and that cut made durable), then
    /// `fsync`: one write, so that a crash never keeps part of a group without a power loss,
    /// and a power loss tears it as it tore any append before room.
    mutating func appendDurably(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle) throws {
        guard bytes.count <= Self.roomChunk else {
            if room > 0 {
                try fileSystem.truncate(file, toLength: length)
                room = 0
                try fileSystem.synchronize(file)
            }
            try fileSystem.write(bytes, to: file, at: length)
            try fileSystem.synchronize(file)
            return
        }
        if bytes.count + Self.minimumRoom > room {
            try makeRoom(in: file, through: length + bytes.count + Self.minimumRoom)
        }
        try fileSystem.write(bytes, to: file, at: length)
        try fileSystem.synchronizeData(file)
        room -= bytes.count
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
