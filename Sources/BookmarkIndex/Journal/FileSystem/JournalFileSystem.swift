/// An open file, as ``JournalFileSystem`` hands it out.
///
/// Part of the journal's file-system seam, for tests: `@_spi(Testing) import BookmarkIndex`.
@_spi(Testing) public struct JournalFileHandle: Sendable, Hashable {
    /// The operating system's file descriptor.
    public var descriptor: Int32
    /// The path the file was opened at.
    public var path: String

    /// Wraps a descriptor.
    public init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }
}

/// The file operations the journal performs: the seam through which tests cut a write short,
/// fail a write, an fsync or a rename, or crash between any two steps.
///
/// ``PosixFileSystem`` is the real one. Every method throws ``BookmarkIndexError`` with code
/// ``BookmarkIndexError/Code/io`` (or ``BookmarkIndexError/Code/locked``) on failure.
///
/// A test seam, not part of the public API: `@_spi(Testing) import BookmarkIndex` to use it
/// (``JournalStorage/Options/fileSystem``; `FaultInjectingFileSystem` in BookmarkIndexTesting).
@_spi(Testing) public protocol JournalFileSystem: Sendable {
    /// Creates the directory and its parents if missing.
    func createDirectory(atPath path: String) throws
    /// Whether a file exists at `path`.
    func fileExists(atPath path: String) -> Bool
    /// Opens a file for reading; `nil` when there is none.
    func openForReading(atPath path: String) throws -> JournalFileHandle?
    /// Reads the next bytes of the file into `buffer`; returns how many, 0 at the end.
    func read(_ file: JournalFileHandle, into buffer: UnsafeMutableRawBufferPointer) throws -> Int

    /// Moves the read position of `file` (opened for reading) to `offset` bytes from its start.
    func seek(_ file: JournalFileHandle, toOffset offset: Int) throws
    /// Opens (creating if needed) a file for appending; `truncating` empties it first.
    func openForAppending(atPath path: String, truncating: Bool) throws -> JournalFileHandle
    /// Opens (creating if needed) a file for writing at offsets (``write(_:to:at:)``), keeping
    /// what it holds: the journal in use, which may hold room written ahead past its last line.
    func openForWriting(atPath path: String) throws -> JournalFileHandle
    /// Writes all of `bytes` at the end of the file (opened for appending), or throws (possibly
    /// after writing a prefix).
    func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle) throws
    /// Writes all of `bytes` at `offset` of the file (opened for writing), over what is there
    /// and past its end, or throws (possibly after writing a prefix).
    func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle, at offset: Int) throws
    /// Makes what was written to the file durable, its length included (`fsync`).
    func synchronize(_ file: JournalFileHandle) throws
    /// Makes the bytes written over the file's existing length durable, without the metadata
    /// that reading them back does not need (`fdatasync`): after a write that did not grow the
    /// file, no file-system journal commit.
    func synchronizeData(_ file: JournalFileHandle) throws
    /// Cuts the file to `length` bytes.
    func truncate(_ file: JournalFileHandle, toLength length: Int) throws
    /// Closes the file.
    func close(_ file: JournalFileHandle) throws
    /// Atomically replaces `destination` by `source`.
    func rename(atPath source: String, toPath destination: String) throws
    /// Gives the file at `source` a second name, `destination` (a hard link).
    func linkItem(atPath source: String, toPath destination: String) throws
    /// Makes the directory's entries (renames, creations) durable.
    func synchronizeDirectory(atPath path: String) throws
    /// Deletes a file; no error when it does not exist.
    func removeItem(atPath path: String) throws
    /// Takes an exclusive advisory lock on the file at `path` (created if missing), without
    /// waiting. Throws ``BookmarkIndexError/Code/locked`` when someone else holds it, in this
    /// process or another. Closing the returned handle (with ``close(_:)``) releases the lock.
    func lockExclusively(atPath path: String) throws -> JournalFileHandle
}

extension JournalFileSystem {
    /// The next `count` elements' bytes of `file`, read straight into a new array; `nil` when
    /// the file ends first.
    func readArray<Element: BitwiseCopyable>(_ file: JournalFileHandle, count: Int) throws -> [Element]? {
        do {
            return try [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                var filled = 0
                while filled < raw.count {
                    let read = try self.read(file, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                    if read == 0 { throw EndOfFile() }
                    filled += read
                }
                initialized = count
            }
        } catch is EndOfFile {
            return nil
        }
    }
}

/// The file ended before an exact read was filled.
private struct EndOfFile: Error {}

extension JournalFileSystem {
    /// The whole file, or `nil` when there is none.
    @_spi(Testing) public func contents(atPath path: String) throws -> [UInt8]? {
        guard let file = try openForReading(atPath: path) else { return nil }
        defer { try? close(file) }
        var contents: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try block.withUnsafeMutableBytes { try read(file, into: $0) }
            if count == 0 { return contents }
            contents.append(contentsOf: block[..<count])
        }
    }
}
