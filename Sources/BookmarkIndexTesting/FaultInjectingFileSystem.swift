@_spi(Testing) import BookmarkIndex
import Foundation
import Synchronization

/// A `JournalFileSystem` over the real one that injects the failures SQLite and LevelDB test
/// against: a write cut short at any byte, a failed write, fsync or rename, a crash between any
/// two steps, and the loss of everything not yet fsynced.
///
/// Every mutating call (open for writing, write, fsync, fdatasync, truncate, closing a written file, rename,
/// link, directory fsync, delete) is numbered from 0; reads are not counted. ``mutatingOperations``
/// counts them, so a test can first count the steps of an operation and then crash at each one
/// in turn.
///
/// After a crash every call fails, as in a dead process, except that closing still releases the
/// descriptor (the kernel does that for a dead process). Call ``restart(losingUnsyncedData:)``
/// before reopening: it plays the part of the reboot.
///
/// Like the seam it plugs into, it is behind `@_spi(Testing)`: import both modules with it
/// (`@_spi(Testing) import BookmarkIndex`, `@_spi(Testing) import BookmarkIndexTesting`) and set
/// it as `JournalStorage.Options.fileSystem`.
@_spi(Testing) public final class FaultInjectingFileSystem: JournalFileSystem {
    /// A scripted failure.
    public enum Fault: Sendable, Hashable {
        /// The operation fails with an I/O error; a write writes nothing.
        case fail
        /// A write writes only its first `bytes` bytes, then fails.
        case cutShort(keeping: Int)
        /// The process dies during the operation: a write first writes `keepingBytes` bytes.
        case crash(keepingBytes: Int)
    }

    /// The mutating operations, for ``inject(_:at:)`` and ``operationLog``.
    public enum Operation: String, Sendable, Hashable {
        case open, write, synchronize, synchronizeData, truncate, close, rename, link, synchronizeDirectory, remove
    }

    private struct State {
        var count = 0
        var faults: [Int: Fault] = [:]
        var faultsByKind: [Operation: [Fault]] = [:]
        var crashed = false
        /// The length of each file at its last fsync; files written since are listed as dirty.
        var syncedLength: [String: Int] = [:]
        /// What writes at an offset and cuts wrote over or removed since each file's last fsync:
        /// the bytes that were there (within its synced length), oldest first, which a power
        /// loss puts back.
        var overwritten: [String: [(offset: Int, bytes: [UInt8])]] = [:]
        var log: [Operation] = []
        /// Files open for reading: closing them is not a step that can fail.
        var readers: Set<Int32> = []
        var reads = 0
    }

    private let base = PosixFileSystem()
    private let state = Mutex(State())

    /// At most how many bytes a read returns, or `nil` for as many as asked.
    public let maximumRead: Int?

    /// How many reads returned bytes so far (reads are not steps: they never fail here).
    public var nonEmptyReads: Int { state.withLock { $0.reads } }

    /// A file system with no faults scheduled.
    ///
    /// - Parameter maximumRead: at most how many bytes a read returns, as a pipe or a network
    ///   file system may return fewer than asked. The journal's scanner reads whatever a read
    ///   returns as a block, so a test can scan several groups of blocks of a small journal.
    public init(maximumRead: Int? = nil) {
        precondition(maximumRead.map { $0 > 0 } ?? true, "a read returns at least a byte")
        self.maximumRead = maximumRead
    }

    /// How many mutating operations have run so far.
    public var mutatingOperations: Int { state.withLock { $0.count } }

    /// The kinds of the mutating operations so far, in order.
    public var operationLog: [Operation] { state.withLock { $0.log } }

    /// Whether a scripted crash has happened.
    public var hasCrashed: Bool { state.withLock { $0.crashed } }

    /// Schedules `fault` for the mutating operation numbered `index`.
    public func inject(_ fault: Fault, at index: Int) {
        state.withLock { $0.faults[index] = fault }
    }

    /// Schedules `fault` for the next operation of kind `operation`.
    public func inject(_ fault: Fault, atNext operation: Operation) {
        state.withLock { $0.faultsByKind[operation, default: []].append(fault) }
    }

    /// Ends the simulated crash: optionally drops every byte not fsynced (a power loss: what was
    /// written over bytes already on disk is put back as it was, and the file cut to its synced
    /// length), then lets calls through again.
    public func restart(losingUnsyncedData: Bool) {
        state.withLock { state in
            if losingUnsyncedData {
                for (path, writes) in state.overwritten {
                    for write in writes.reversed() { putBack(write.bytes, atPath: path, offset: write.offset) }
                }
                for (path, length) in state.syncedLength {
                    cutFile(atPath: path, toLength: length)
                }
            }
            state.overwritten = [:]
            state.crashed = false
            state.faults = [:]
            state.faultsByKind = [:]
        }
    }

    // MARK: Fault plumbing

    private func step(_ operation: Operation) throws -> Fault? {
        try state.withLock { state in
            if state.crashed { throw Self.error("the process has crashed") }
            let index = state.count
            state.count += 1
            state.log.append(operation)
            if let fault = state.faults.removeValue(forKey: index) {
                if case .crash = fault { state.crashed = true }
                return fault
            }
            if var queued = state.faultsByKind[operation], !queued.isEmpty {
                let fault = queued.removeFirst()
                state.faultsByKind[operation] = queued
                if case .crash = fault { state.crashed = true }
                return fault
            }
            return nil
        }
    }

    private static func error(_ what: String) -> BookmarkIndexError {
        BookmarkIndexError(.io, "Injected fault: \(what).")
    }

    private func failUnlessWrite(_ fault: Fault?, _ operation: Operation) throws {
        switch fault {
        case nil: return
        case .fail, .cutShort: throw Self.error("\(operation) failed")
        case .crash: throw Self.error("crashed during \(operation)")
        }
    }

    private func length(of path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    // MARK: JournalFileSystem

    public func createDirectory(atPath path: String) throws {
        if hasCrashed { throw Self.error("the process has crashed") }
        try base.createDirectory(atPath: path)
    }

    public func fileExists(atPath path: String) -> Bool {
        base.fileExists(atPath: path)
    }

    public func openForReading(atPath path: String) throws -> JournalFileHandle? {
        if hasCrashed { throw Self.error("the process has crashed") }
        let file = try base.openForReading(atPath: path)
        if let file { state.withLock { _ = $0.readers.insert(file.descriptor) } }
        return file
    }

    public func read(_ file: JournalFileHandle, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if hasCrashed { throw Self.error("the process has crashed") }
        let target = maximumRead.map { UnsafeMutableRawBufferPointer(rebasing: buffer[..<min($0, buffer.count)]) } ?? buffer
        let count = try base.read(file, into: target)
        if count > 0 { state.withLock { $0.reads += 1 } }
        return count
    }

    public func seek(_ file: JournalFileHandle, toOffset offset: Int) throws {
        if hasCrashed { throw Self.error("the process has crashed") }
        try base.seek(file, toOffset: offset)
    }

    public func openForAppending(atPath path: String, truncating: Bool) throws -> JournalFileHandle {
        try open(path, emptied: truncating) { try base.openForAppending(atPath: path, truncating: truncating) }
    }

    public func openForWriting(atPath path: String) throws -> JournalFileHandle {
        try open(path, emptied: false) { try base.openForWriting(atPath: path) }
    }

    /// A step that opens `path` for writing with `body`: a new or `emptied` file has nothing
    /// synced; an existing one counts as synced up to its length when first opened.
    private func open(_ path: String, emptied: Bool, _ body: () throws -> JournalFileHandle) throws -> JournalFileHandle {
        try failUnlessWrite(try step(.open), .open)
        let existed = base.fileExists(atPath: path)
        let file = try body()
        state.withLock { state in
            if !existed || emptied { state.syncedLength[path] = 0 }
            else if state.syncedLength[path] == nil { state.syncedLength[path] = length(of: path) }
        }
        return file
    }

    public func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle) throws {
        try write(bytes) { try base.write($0, to: file) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle, at offset: Int) throws {
        try write(bytes) { kept in
            rememberOverwritten(file.path, offset: offset, count: kept.count)
            try base.write(kept, to: file, at: offset)
        }
    }

    /// A write step: `body` writes all of `bytes`, or (a write cut short or a crash) the prefix
    /// the fault keeps, before the fault is thrown; a failed write writes nothing.
    private func write(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fault = try step(.write)
        switch fault {
        case nil:
            try body(bytes)
        case .fail:
            throw Self.error("write failed")
        case .cutShort(let keeping):
            try body(UnsafeRawBufferPointer(rebasing: bytes[..<min(keeping, bytes.count)]))
            throw Self.error("write cut short after \(keeping) bytes")
        case .crash(let keeping):
            try body(UnsafeRawBufferPointer(rebasing: bytes[..<min(keeping, bytes.count)]))
            throw Self.error("crashed during a write after \(keeping) bytes")
        }
    }

    /// Keeps the bytes a write (or a cut) at `offset` is about to replace within the file's
    /// synced length.
    private func rememberOverwritten(_ path: String, offset: Int, count: Int) {
        state.withLock { state in
            let synced = state.syncedLength[path] ?? 0
            let end = min(offset + count, synced)
            guard end > offset else { return }
            state.overwritten[path, default: []].append((offset, readBytes(atPath: path, offset: offset, count: end - offset)))
        }
    }

    public func synchronize(_ file: JournalFileHandle) throws {
        try failUnlessWrite(try step(.synchronize), .synchronize)
        try base.synchronize(file)
        synchronized(file.path)
    }

    public func synchronizeData(_ file: JournalFileHandle) throws {
        try failUnlessWrite(try step(.synchronizeData), .synchronizeData)
        try base.synchronizeData(file)
        synchronized(file.path)
    }

    /// After an fsync or fdatasync: everything written to the file is on disk, its length included.
    private func synchronized(_ path: String) {
        let length = length(of: path)
        state.withLock { state in
            state.syncedLength[path] = length
            state.overwritten[path] = nil
        }
    }

    /// Until the next fsync of the file, a power loss undoes the cut: the synced bytes it
    /// removed come back.
    public func truncate(_ file: JournalFileHandle, toLength length: Int) throws {
        try failUnlessWrite(try step(.truncate), .truncate)
        rememberOverwritten(file.path, offset: length, count: Int.max - length)
        try base.truncate(file, toLength: length)
    }

    public func close(_ file: JournalFileHandle) throws {
        if state.withLock({ $0.readers.remove(file.descriptor) != nil }) {
            try base.close(file)
            return
        }
        let crashed = hasCrashed
        let fault = crashed ? nil : try step(.close)
        try base.close(file)
        if crashed { throw Self.error("the process has crashed") }
        try failUnlessWrite(fault, .close)
    }

    public func rename(atPath source: String, toPath destination: String) throws {
        try failUnlessWrite(try step(.rename), .rename)
        try base.rename(atPath: source, toPath: destination)
        state.withLock { state in
            state.syncedLength[destination] = state.syncedLength.removeValue(forKey: source)
            state.overwritten[destination] = state.overwritten.removeValue(forKey: source)
        }
    }

    public func linkItem(atPath source: String, toPath destination: String) throws {
        try failUnlessWrite(try step(.link), .link)
        try base.linkItem(atPath: source, toPath: destination)
    }

    public func synchronizeDirectory(atPath path: String) throws {
        try failUnlessWrite(try step(.synchronizeDirectory), .synchronizeDirectory)
        try base.synchronizeDirectory(atPath: path)
    }

    public func removeItem(atPath path: String) throws {
        try failUnlessWrite(try step(.remove), .remove)
        try base.removeItem(atPath: path)
        state.withLock { state in
            state.syncedLength[path] = nil
            state.overwritten[path] = nil
        }
    }

    public func lockExclusively(atPath path: String) throws -> JournalFileHandle {
        if hasCrashed { throw Self.error("the process has crashed") }
        return try base.lockExclusively(atPath: path)
    }
}

/// `count` bytes of the file at `path` from `offset` (fewer where it ends).
private func readBytes(atPath path: String, offset: Int, count: Int) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: count)
    let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(offset)) }
    return Array(bytes[..<max(0, read)])
}

/// Writes `bytes` back at `offset` of the file at `path`.
private func putBack(_ bytes: [UInt8], atPath path: String, offset: Int) {
    let descriptor = open(path, O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
}

/// Cuts the file at `path` to `length` bytes, if it exists and is longer.
private func cutFile(atPath path: String, toLength length: Int) {
    var info = stat()
    if stat(path, &info) == 0, Int(info.st_size) > length {
        _ = truncate(path, off_t(length))
    }
}
