@_spi(Testing) @testable import BookmarkIndex
import BookmarkJSON
import BookmarkIndexTesting
import Foundation
import Testing

/// Arrays and objects nested without end (issue 26): a journal line of 100,000 `[` overflowed
/// the I/O thread's stack in open, `JournalReader` and `verify`. The reader now stops at
/// ``JSONReader/maximumDepth`` with an error, and the line is damage like any other.
@Suite("JSON nesting")
struct JournalNestingTests {
    static let deep = 100_000

    // MARK: Fixtures, made in code

    /// `depth` arrays, one inside the other.
    static func nestedArrays(_ depth: Int) -> [UInt8] {
        [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
    }

    /// `depth` objects, one inside the other, the innermost holding a number.
    static func nestedObjects(_ depth: Int) -> [UInt8] {
        Array(String(repeating: #"{"k":"#, count: depth).utf8) + [UInt8(ascii: "0")] + [UInt8](repeating: UInt8(ascii: "}"), count: depth)
    }

    /// Objects and arrays in turn, `depth` in all.
    static func nestedMixed(_ depth: Int) -> [UInt8] {
        var open: [UInt8] = [], close: [UInt8] = []
        for level in 0..<depth {
            if level % 2 == 0 {
                open += Array(#"{"k":"#.utf8)
                close.append(UInt8(ascii: "}"))
            } else {
                open.append(UInt8(ascii: "["))
                close.append(UInt8(ascii: "]"))
            }
        }
        return open + [UInt8(ascii: "1")] + close.reversed()
    }

    /// A batch line (newline included) whose checksum is right, with `nested` as the value of
    /// a member the batch record does not know: the reader must get through it to the end.
    static func batchLine(sequence: Int, nested: [UInt8]) -> [UInt8] {
        var line = Array(#"{"crc":"00000000","seq":\#(sequence),"changes":[],"extra":"#.utf8) + nested + [UInt8(ascii: "}")]
        let crc = line.withUnsafeBytes { JournalCodec.checksum(of: $0, skipping: 8..<16) }
        line.replaceSubrange(8..<16, with: Array(String(format: "%08x", crc).utf8))
        return line + [0x0A]
    }

    /// A good batch line, as the journal writes it.
    static func batchLine(sequence: Int, _ changes: [BookmarkChange]) -> [UInt8] {
        var writer = JSONWriter()
        JournalCodec.appendBatch(sequence: sequence, changes, to: &writer)
        return writer.bytes
    }

    /// A journal of a header and three batches, through the public API; the state it holds.
    static func makeJournal(in directory: TemporaryDirectory) async throws -> BookmarkIndexState {
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(durability: .none))
        var state = BookmarkIndexState()
        for index in 0..<3 {
            let batch = generatedBatch(first: index * 10, count: 3, restrict: index == 1 ? .private : .public, order: Int64(-index * 10))
            try await journal.append(batch)
            state.apply(batch)
        }
        try await journal.close()
        return state
    }

    static let lastBatch = generatedBatch(first: 500, count: 2)

    // MARK: In the middle of a journal

    @Test func aDeeplyNestedLineInTheMiddleIsDamageNamedByItsLine() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var expected = try await Self.makeJournal(in: directory)
        let original = directory.journalBytes()
        let damaged = Self.batchLine(sequence: 4, nested: Self.nestedArrays(Self.deep))
        #expect(damaged.count > 200_000)
        let bytes = original + damaged + Self.batchLine(sequence: 5, Self.lastBatch)
        directory.writeJournal(bytes)
        let offset = original.count

        // Open refuses, naming the line, and changes nothing.
        let error = try await #require(throws: BookmarkIndexError.self) {
            try await JournalStorage.open(directory: directory.url, options: journalOptions())
        }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("line 5 at byte offset \(offset)"), "\(error.message)")
        #expect(error.message.contains("nested more than \(JSONReader.maximumDepth) deep"), "\(error.message)")
        #expect(directory.journalFingerprint() == fingerprint(bytes), "a refused open changes nothing")

        // Verify reports the damage.
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(!report.isHealthy)
        #expect(report.damage.map(\.line) == [5])
        #expect(report.damage.first?.offset == offset)
        #expect(report.damage.first?.reason.contains("nested more than") == true, "\(report.damage)")
        #expect(report.batches == 4)
        #expect(report.tornTail == nil)
        #expect(report.nextOpenRefuses != nil)

        // A reader refuses too, or, salvaging, reads every other batch.
        let readError = try await #require(throws: BookmarkIndexError.self) {
            try await JournalReader.open(directory: directory.url, options: journalOptions())
        }
        #expect(readError.code == .corrupt)
        #expect(readError.message.contains("line 5 at byte offset \(offset)"), "\(readError.message)")
        expected.apply(Self.lastBatch)
        let reader = try await JournalReader.open(directory: directory.url, options: journalOptions(salvage: true))
        #expect(StateDump(try await reader.load()) == StateDump(expected))
        #expect(reader.recovery.droppedDamage.map(\.line) == [5])
        #expect(directory.journalFingerprint() == fingerprint(bytes), "a reader writes nothing")

        // Salvage keeps every other batch, the damaged file aside.
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(salvage: true))
        #expect(StateDump(try await journal.load()) == StateDump(expected))
        #expect(journal.recovery.droppedDamage.map(\.line) == [5])
        let aside = try #require(journal.recovery.damagedFileMovedTo)
        #expect(fingerprint(try PosixFileSystem().contents(atPath: aside) ?? []) == fingerprint(bytes))
        try await journal.close()
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        #expect(reopened.recovery.isClean)
        try await reopened.close()
    }

    /// Deep nesting inside a change (an unknown member of an upsert's illust) is found the same way.
    @Test func deepNestingInsideAChangeIsDamageToo() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try await Self.makeJournal(in: directory)
        let original = directory.journalBytes()
        var line = Self.batchLine(sequence: 4, generatedBatch(first: 900, count: 1))
        line.removeLast()  // the newline
        let marker = Array(#""illust":{"#.utf8)
        let illust = try #require(line.indices.first { line[$0...].starts(with: marker) })
        let insertAt = illust + marker.count
        line.insert(contentsOf: Array(#""deep":"#.utf8) + Self.nestedMixed(Self.deep) + [UInt8(ascii: ",")], at: insertAt)
        let crc = line.withUnsafeBytes { JournalCodec.checksum(of: $0, skipping: 8..<16) }
        line.replaceSubrange(8..<16, with: Array(String(format: "%08x", crc).utf8))
        directory.writeJournal(original + line + [0x0A] + Self.batchLine(sequence: 5, Self.lastBatch))

        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.damage.map(\.line) == [5])
        #expect(report.damage.first?.reason.contains("nested more than") == true, "\(report.damage)")
        let error = try await #require(throws: BookmarkIndexError.self) {
            try await JournalStorage.open(directory: directory.url, options: journalOptions())
        }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("line 5 at byte offset \(original.count)"), "\(error.message)")
    }

    // MARK: As the last line

    /// A last line that cannot be read is taken for a write cut short by a crash, whatever made
    /// it unreadable (the scanner does not tell a torn write from other damage on the last
    /// line): open cuts it off and reports it; verify and a reader report it and leave it.
    @Test func aDeeplyNestedLastLineIsCutAsATornTail() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let expected = try await Self.makeJournal(in: directory)
        let original = directory.journalBytes()
        let damaged = Self.batchLine(sequence: 4, nested: Self.nestedArrays(Self.deep))
        let bytes = original + damaged
        directory.writeJournal(bytes)

        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.damage.isEmpty)
        #expect(report.tornTail?.line == 5)
        #expect(report.tornTail?.offset == original.count)
        #expect(report.tornTail?.reason.contains("nested more than") == true, "\(String(describing: report.tornTail))")
        #expect(report.nextOpen?.truncatedTail?.line == 5)
        #expect(report.batches == 3)

        let reader = try await JournalReader.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await reader.load()) == StateDump(expected))
        #expect(reader.recovery.truncatedTail?.line == 5)
        #expect(directory.journalFingerprint() == fingerprint(bytes), "a reader leaves the tail in place")

        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await journal.load()) == StateDump(expected))
        let tail = try #require(journal.recovery.truncatedTail)
        #expect(tail.line == 5)
        #expect(tail.offset == original.count)
        #expect(tail.bytes == damaged.count)
        #expect(tail.reason.contains("nested more than \(JSONReader.maximumDepth) deep"), "\(tail.reason)")
        #expect(directory.journalFingerprint() == fingerprint(original), "the tail is cut off on disk")
        try await journal.append(Self.lastBatch)
        try await journal.close()
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(reopened.recovery.isClean)
        #expect(try await reopened.load().contains(BookmarkKey(illustID: 500, restrict: .public)))
        try await reopened.close()
    }

    // MARK: The reader's limit

    static func skip(_ bytes: [UInt8]) throws -> Int {
        try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            try reader.skipValue()
            try reader.expectEnd()
            return reader.position
        }
    }

    static func readValue(_ bytes: [UInt8]) throws -> JournalValue {
        try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            let value = try JournalValue.read(&reader)
            try reader.expectEnd()
            return value
        }
    }

    /// How deep `value` nests its arrays and objects.
    static func depth(of value: JournalValue) -> Int {
        var depth = 0
        var current = value
        while true {
            switch current {
            case .array(let elements) where elements.count <= 1:
                depth += 1
                guard let first = elements.first else { return depth }
                current = first
            case .object(let members) where members.count == 1:
                depth += 1
                current = members.first!.value
            default:
                return depth
            }
        }
    }

    @Test(arguments: ["arrays", "objects", "mixed"])
    func exactlyTheMaximumDepthReadsAndOneMoreThrows(shape: String) throws {
        let make: (Int) -> [UInt8] = switch shape {
        case "arrays": Self.nestedArrays
        case "objects": Self.nestedObjects
        default: Self.nestedMixed
        }
        let limit = JSONReader.maximumDepth
        #expect(limit == 128)
        let fits = make(limit)
        #expect(try Self.skip(fits) == fits.count)
        #expect(Self.depth(of: try Self.readValue(fits)) == limit)

        for depth in [limit + 1, limit + 2, Self.deep] {
            let tooDeep = make(depth)
            let skipError = try #require(throws: JSONReadError.self) { try Self.skip(tooDeep) }
            #expect(skipError.message.contains("nested more than \(limit) deep"), "\(skipError.message)")
            let readError = try #require(throws: JSONReadError.self) { try Self.readValue(tooDeep) }
            #expect(readError.message == skipError.message)
            #expect(readError.offset == skipError.offset)
            // The error points at the bracket that went one level too deep.
            let opening = tooDeep.indices.filter { tooDeep[$0] == UInt8(ascii: "[") || tooDeep[$0] == UInt8(ascii: "{") }
            #expect(skipError.offset == opening[limit], "\(shape), depth \(depth)")
        }
    }

    /// The depth is of nesting, not of how many arrays a value holds: leaving one frees its level.
    @Test func siblingsDoNotAddUp() throws {
        let limit = JSONReader.maximumDepth
        var wide: [UInt8] = [UInt8(ascii: "[")]
        for index in 0..<300 {
            if index > 0 { wide.append(UInt8(ascii: ",")) }
            wide += index.isMultiple(of: 2) ? Self.nestedArrays(limit - 1) : Self.nestedObjects(limit - 1)
        }
        wide.append(UInt8(ascii: "]"))
        #expect(try Self.skip(wide) == wide.count)
        guard case .array(let elements) = try Self.readValue(wide) else {
            Issue.record("not an array")
            return
        }
        #expect(elements.count == 300)
        #expect(elements.allSatisfy { Self.depth(of: $0) == limit - 1 })
    }

    // MARK: Payloads

    @Test func aPayloadNestedTooDeepIsRefused() throws {
        for depth in [VersionedPayload.maximumDepth + 1, JSONReader.maximumDepth + 1, 200, Self.deep] {
            let error = try #require(throws: BookmarkIndexError.self) {
                try VersionedPayload(version: 2, json: Data(Self.nestedArrays(depth)))
            }
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("nested more than"), "\(error.message)")
        }
        let objects = try #require(throws: BookmarkIndexError.self) {
            try VersionedPayload(version: 2, json: Data(Self.nestedObjects(200)))
        }
        #expect(objects.code == .invalidArgument)
        #expect(try VersionedPayload(version: 2, json: Data(Self.nestedArrays(20))).json == Data(Self.nestedArrays(20)))
    }

    /// A payload the index accepts is one it can read back: every depth `VersionedPayload`
    /// takes must survive being written inside a journal line (where it sits five levels down:
    /// the batch, its changes, the change, the metadata, the sync record) and reopened, whether
    /// its line is followed by another or is the last.
    @Test(arguments: [100, VersionedPayload.maximumDepth - 1, VersionedPayload.maximumDepth], [false, true])
    func everyAcceptedPayloadReadsBackFromTheJournal(depth: Int, metadataLast: Bool) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let payload = try VersionedPayload(version: 2, json: Data(Self.nestedArrays(depth)))
        let metadata = BookmarkIndexMetadata(syncState: payload)
        do {
            let store = try await BookmarksIndexStore(storage: JournalStorage.open(directory: directory.url, options: journalOptions()))
            if metadataLast { try await store.upsert([row(1, order: 1)]) }
            try await store.setMetadata(metadata, for: .public)
            if !metadataLast { try await store.upsert([row(1, order: 1)]) }
            try await store.close()
        }
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.damage.isEmpty, "payload nested \(depth) deep: \(report.damage)")
        #expect(report.tornTail == nil, "payload nested \(depth) deep: \(String(describing: report.tornTail))")
        let store = try await BookmarksIndexStore(storage: JournalStorage.open(directory: directory.url, options: journalOptions()))
        #expect(await store.metadata(for: .public) == metadata, "payload nested \(depth) deep")
        #expect(await store.count(in: .public) == 1)
        try await store.close()
    }
}
