import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real file system, through POSIX calls: what the journal uses unless a test substitutes
/// another ``JournalFileSystem`` (`@_spi(Testing) import BookmarkIndex`).
@_spi(Testing) public struct PosixFileSystem: JournalFileSystem {
    /// The file system.
    public init() {}

    public func createDirectory(atPath path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw failure("create the directory", prefix)
            }
        }
    }

    public func fileExists(atPath path: String) -> Bool {
        access(path, F_OK) == 0
    }

    public func openForReading(atPath path: String) throws -> JournalFileHandle? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw failure("open", path)
        }
        return JournalFileHandle(descriptor: descriptor, path: path)
    }

    public func read(_ file: JournalFileHandle, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = posixRead(file.descriptor, buffer.baseAddress!, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw failure("read", file.path) }
        }
    }

    public func seek(_ file: JournalFileHandle, toOffset offset: Int) throws {
        if lseek(file.descriptor, off_t(offset), SEEK_SET) < 0 { throw failure("lseek", file.path) }
    }

    public func openForAppending(atPath path: String, truncating: Bool) throws -> JournalFileHandle {
        let flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncating ? O_TRUNC : 0)
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw failure("open", path) }
        return JournalFileHandle(descriptor: descriptor, path: path)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle) throws {
        try writeFully(bytes, to: file) { start, count, _ in posixWrite(file.descriptor, start, count) }
    }

    public func openForWriting(atPath path: String) throws -> JournalFileHandle {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open", path) }
        return JournalFileHandle(descriptor: descriptor, path: path)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle, at offset: Int) throws {
        try writeFully(bytes, to: file) { pwrite(file.descriptor, $0, $1, off_t(offset + $2)) }
    }

    /// Calls `write` (given where the rest starts, how many bytes are left and how many are
    /// written) until every byte of `bytes` is written, again after an interrupted call.
    private func writeFully(
        _ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle, with write: (UnsafeRawPointer, Int, Int) -> Int
    ) throws {
        var written = 0
        while written < bytes.count {
            let count = write(bytes.baseAddress! + written, bytes.count - written, written)
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("write to", file.path)
            }
            written += count
        }
    }

    public func synchronize(_ file: JournalFileHandle) throws {
        guard fsync(file.descriptor) == 0 else { throw failure("fsync", file.path) }
    }

    public func synchronizeData(_ file: JournalFileHandle) throws {
        #if os(Linux)
        guard fdatasync(file.descriptor) == 0 else { throw failure("fdatasync", file.path) }
        #else
        guard fsync(file.descriptor) == 0 else { throw failure("fsync", file.path) }
        #endif
    }

    public func truncate(_ file: JournalFileHandle, toLength length: Int) throws {
        guard ftruncate(file.descriptor, off_t(length)) == 0 else { throw failure("truncate", file.path) }
    }

    public func close(_ file: JournalFileHandle) throws {
        guard closeReleasingLock(file) == 0 else { throw failure("close", file.path) }
    }

    public func rename(atPath source: String, toPath destination: String) throws {
        guard posixRename(source, destination) == 0 else { throw failure("rename \(source) to", destination) }
    }

    public func linkItem(atPath source: String, toPath destination: String) throws {
        guard link(source, destination) == 0 else { throw failure("link \(source) as", destination) }
    }

    public func synchronizeDirectory(atPath path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open the directory", path) }
        defer { _ = posixClose(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync the directory", path) }
    }

    public func removeItem(atPath path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("delete", path) }
    }

    public func lockExclusively(atPath path: String) throws -> JournalFileHandle {
        // A POSIX record lock (fcntl) keeps other processes out. Unlike flock, it is not shared
        // with a child forked while the lock is held, so a process that spawns others cannot
        // keep a closed store locked by accident. Record locks do not exclude the same process,
        // so a registry of this process's locks does that.
        let key = canonicalPath(path)
        let locked = BookmarkIndexError(
            .locked,
            "The store at \(path.dropLast(5)) is open elsewhere (in this process or another); only one writer may open it. Close the other store first."
        )
        return try heldLocks.withLock { held in
            if held.byPath[key] != nil { throw locked }
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw failure("open the lock file", path) }
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            if fcntl(descriptor, F_SETLK, &lock) != 0 {
                let code = errno
                _ = posixClose(descriptor)
                if code == EAGAIN || code == EACCES { throw locked }
                throw BookmarkIndexError(.io, "Could not lock \(path): \(String(cString: strerror(code))) (errno \(code)).")
            }
            held.byPath[key] = descriptor
            held.byDescriptor[descriptor] = key
            return JournalFileHandle(descriptor: descriptor, path: path)
        }
    }

    /// Closes `file`; a lock file's record in the registry goes in the same step, so no other
    /// thread can take the lock between the two (closing any descriptor of the lock file drops
    /// this process's record lock on it).
    private func closeReleasingLock(_ file: JournalFileHandle) -> Int32 {
        heldLocks.withLock { held in
            if let key = held.byDescriptor.removeValue(forKey: file.descriptor) {
                held.byPath[key] = nil
            }
            return posixClose(file.descriptor)
        }
    }

    /// `path` with its directory resolved (symbolic links, `..`), so two spellings of one
    /// store meet in the registry; the file itself need not exist yet.
    private func canonicalPath(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        guard let resolved = realpath(directory, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved) + path[slash...]
    }

    private func failure(_ action: String, _ path: String) -> BookmarkIndexError {
        let code = errno
        return BookmarkIndexError(.io, "Could not \(action) \(path): \(String(cString: strerror(code))) (errno \(code)).")
    }
}

/// The lock files this process holds: canonical path → descriptor, and back (a lock is
/// released by its descriptor, whatever its path resolves to by then).
private let heldLocks = Mutex<(byPath: [String: Int32], byDescriptor: [Int32: String])>(([:], [:]))

// The POSIX functions whose names this type's methods shadow.
private func posixClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, buffer, count) }
private func posixRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, buffer, count) }
