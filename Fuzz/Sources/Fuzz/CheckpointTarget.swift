@testable import BookmarkIndex
import Foundation

/// A checkpoint of arbitrary bytes beside a sound journal, its journal ID set to that
/// journal's and every checksum recomputed so that inputs reach the checks behind them: a
/// read-only open must succeed (a checkpoint it cannot use is ignored, the journal read whole).
struct CheckpointTarget: FuzzTarget {
    /// The name from before the checkpoint had its name, kept so that a corpus built under it
    /// (`.build/fuzz/corpus/snapshot`) and the commands that name it go on working.
    static let name = "snapshot"
    let directory: URL
    let journal: Data
    let journalID: UInt64

    /// Where the header keeps the journal's ID, the section count and the section table.
    static let journalIDOffset = 72, sectionCountOffset = 64, tableOffset = 80, sectionCount = 20

    init() throws {
        directory = try scratchDirectory(Self.name)
        try SampleStore.write(to: directory)
        journal = try Data(contentsOf: directory.appendingPathComponent(JournalStorage.journalFileName))
        let checkpoint = try Data(contentsOf: directory.appendingPathComponent(JournalStorage.checkpointFileName))
        journalID = checkpoint.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: Self.journalIDOffset, as: UInt64.self) }
    }

    func run(_ input: [UInt8]) {
        try? FileManager.default.removeItem(at: directory)
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try! journal.write(to: directory.appendingPathComponent(JournalStorage.journalFileName))
        try! Data(Self.patched(input, journalID: journalID)).write(to: directory.appendingPathComponent(JournalStorage.checkpointFileName))
        do {
            _ = try blocking { try await JournalReader.open(directory: directory) }
        } catch {
            broken("a sound journal with a damaged checkpoint did not open: \(error)")
        }
    }

    /// `input` with the journal's ID, each section's XXH64 (over as many bytes as its size says,
    /// where the file has them) and the header's own.
    static func patched(_ input: [UInt8], journalID: UInt64) -> [UInt8] {
        var bytes = input
        func store<Value>(_ value: Value, at offset: Int) {
            bytes.withUnsafeMutableBytes { $0.storeBytes(of: value, toByteOffset: offset, as: Value.self) }
        }
        func load<Value>(_: Value.Type, at offset: Int) -> Value {
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Value.self) }
        }
        guard bytes.count >= tableOffset else { return bytes }
        store(journalID, at: journalIDOffset)
        let headerEnd = tableOffset + 16 * sectionCount + 8
        guard load(Int64.self, at: sectionCountOffset) == Int64(sectionCount), bytes.count >= headerEnd else { return bytes }
        var position = headerEnd
        for section in 0..<sectionCount {
            let size = load(Int64.self, at: tableOffset + 8 * section)
            guard size >= 0, size <= Int64(bytes.count - position) else { break }
            let hash = bytes.withUnsafeBytes { IndexCheckpoint.checksum(UnsafeRawBufferPointer(rebasing: $0[position..<position + Int(size)])) }
            store(hash, at: tableOffset + 8 * sectionCount + 8 * section)
            position += Int(size)
        }
        let headerHash = bytes.withUnsafeBytes { IndexCheckpoint.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<headerEnd - 8])) }
        store(headerHash, at: headerEnd - 8)
        return bytes
    }

    static func seeds() throws -> [[UInt8]] {
        let directory = try scratchDirectory("checkpoint-seed")
        defer { try? FileManager.default.removeItem(at: directory) }
        try SampleStore.write(to: directory)
        return [Array(try Data(contentsOf: directory.appendingPathComponent(JournalStorage.checkpointFileName)))]
    }
}
