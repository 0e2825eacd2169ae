@testable import BookmarkIndex
import BookmarkIndexTesting
import BookmarkJSON
import Foundation
import Testing

/// The journal's fast reader of batch lines (straight into rows) against the records'
/// descriptions, which define the format: every line reads to the same rows both ways, or the
/// fast reader gives it back; a line the codec refuses is never accepted.
@Suite("Journal row decoder")
struct JournalRowDecoderTests {
    // MARK: Comparing

    /// What a prepared change holds, spelled out: the row's bytes (with where its text and tags
    /// sit in the arenas left out), its texts and its tags by value.
    static func describe(_ rows: PreparedRows) -> [String] {
        rows.changes.map { change in
            switch change {
            case .upsert(let upsert):
                var row = upsert.row
                let text = Array(rows.text[row.textRange])
                let tags = rows.tags[row.tagRange].map { rows.tagList[Int($0)] }
                row.textStart = 0
                row.tagStart = 0
                let bytes = withUnsafeBytes(of: row) { Array($0) }
                return "upsert \(upsert.restrict) \(upsert.typeCode) \(bytes) \(text) \(tags)"
            case .remove(let key): return "remove \(key)"
            case .removeAll(let restrict): return "removeAll \(restrict)"
            case .setMetadata(let metadata, let restrict): return "metadata \(restrict) \(metadata)"
            }
        }
    }

    enum Outcome: Equatable {
        case batch(sequence: Int, changes: [String])
        case refused
        case declined
    }

    /// The line read by the codec: its changes prepared, or refused.
    static func codec(_ line: [UInt8]) -> Outcome {
        guard case .batch(let sequence, let changes)? = try? line.withUnsafeBytes({ try JournalCodec.decodeVerifiedLine($0) }) else {
            return .refused
        }
        return .batch(sequence: sequence, changes: describe(PreparedRows(changes)))
    }

    /// The line read by the fast reader, into rows that already hold `before` (as a block's
    /// later lines find its earlier ones' tags listed).
    static func rowDecoder(_ line: [UInt8], after before: [[UInt8]] = []) -> Outcome {
        var rows = PreparedRows(origin: 0)
        var decoder = JournalRowDecoder()
        for earlier in before { _ = earlier.withUnsafeBytes { decoder.decodeBatch($0, into: &rows) } }
        let first = rows.changes.count
        let textBefore = rows.text.count
        guard let sequence = line.withUnsafeBytes({ decoder.decodeBatch($0, into: &rows) }) else {
            #expect(rows.changes.count == first && rows.text.count == textBefore, "a declined line leaves nothing behind")
            return .declined
        }
        return .batch(sequence: sequence, changes: Array(describe(rows)[first...]))
    }

    /// Checks that the fast reader reads `line` as the codec does, or gives it back; and never
    /// accepts what the codec refuses.
    static func expectAgreement(_ line: [UInt8], after before: [[UInt8]] = [], mustRead: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = codec(line)
        let found = rowDecoder(line, after: before)
        let text = String(decoding: line, as: UTF8.self)
        switch found {
        case .declined:
            #expect(!mustRead, "declined: \(text)", sourceLocation: sourceLocation)
        case .refused:
            Issue.record("the fast reader never refuses", sourceLocation: sourceLocation)
        case .batch:
            #expect(found == expected, "\(text)", sourceLocation: sourceLocation)
        }
    }

    static func line(_ changes: [BookmarkChange], sequence: Int = 1) -> [UInt8] {
        var writer = JSONWriter()
        JournalCodec.appendBatch(sequence: sequence, changes, to: &writer)
        var bytes = writer.bytes
        if bytes.last == 0x0A { bytes.removeLast() }
        return bytes
    }

    // MARK: Tests

    /// If a member is added to a record's description and not here, lines carrying it are
    /// declined one by one: slow, not wrong; this test makes it a failure instead.
    @Test func itKnowsEveryMemberTheDescriptionsHave() {
        struct Keys<Record>: JournalRecordVisitor {
            var keys: [String] = []
            mutating func member<Coding: JournalValueCoding>(
                _ key: StaticString, _ coding: Coding, required: Bool, omittedWhen omitted: (Coding.Value) -> Bool,
                get: (Record) -> Coding.Value, set: (inout Record, Coding.Value) -> Void
            ) { keys.append(key.description) }
            mutating func optional<Coding: JournalValueCoding>(
                _ key: StaticString, _ coding: Coding, get: (Record) -> Coding.Value?, set: (inout Record, Coding.Value?) -> Void
            ) { keys.append(key.description) }
            mutating func constant(_ key: StaticString, _ value: StaticString) { keys.append(key.description) }
        }
        var upsert = Keys<IndexedBookmark>()
        try? JournalRecords.Upsert.describe(&upsert)
        var illust = Keys<BookmarkedIllustSnapshot>()
        try? JournalRecords.Illust.describe(&illust)
        #expect(upsert.keys == JournalRowDecoder.upsertKeys.map(\.description))
        #expect(illust.keys == JournalRowDecoder.illustKeys.map(\.description))
    }

    /// The reader takes an illust's members left out as the description's empty record has
    /// them, without reading its strings on every row.
    @Test func membersLeftOutReadAsTheEmptyRecord() {
        let empty = JournalRecords.Illust.empty
        #expect(empty.title.isEmpty && empty.artistName.isEmpty && empty.tags.isEmpty)
        #expect(empty.thumbnailURL == nil && empty.vanishReason == nil)
        #expect(empty.type == JournalRowDecoder.unwrittenType)
        let line = Array(#"{"seq":1,"changes":[{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1}}]}"#.utf8)
        Self.expectAgreement(line, mustRead: true)
    }

    /// Generated batches over every kind of change and value (escapes, vanished rows with and
    /// without a date, placeholders, removals, metadata), and rows over every field the facets
    /// read: each line reads the same both ways, and the fast reader reads them all.
    @Test(arguments: [UInt64(1), 2, 3])
    func generatedLinesReadAlike(seed: UInt64) {
        var lines = IndexCheckpointTests().randomBatches(seed: seed, count: 120).enumerated().map { Self.line($1, sequence: $0 + 1) }
        var random = SeededRandom(seed: seed)
        var rows = FacetAccounts.generator.indexedBookmarks(FacetAccounts.generator.illusts(count: 200, seed: seed), in: .private)
        for index in rows.indices {
            FacetAccounts.randomize(&rows[index], &random)
            if index % 7 == 0 { rows[index].illust.thumbnailURL = index % 14 == 0 ? nil : "https://example.com/\(index).png" }
            if index % 11 == 0 { rows[index].illust.type = FacetAccounts.types[index % 4] }
            if index % 13 == 0 { rows[index].illust.totalView = Int.max }
        }
        lines += stride(from: 0, to: rows.count, by: 20).map { Self.line(rows[$0..<min($0 + 20, rows.count)].map(BookmarkChange.upsert)) }
        for (index, line) in lines.enumerated() {
            Self.expectAgreement(line, after: Array(lines[..<index].suffix(3)), mustRead: true)
        }
    }

    /// Lines written other ways than the journal writes them, and lines the codec refuses.
    @Test func unusualAndBrokenLinesReadAsTheCodecReadsThem() {
        let illust = #""id":7,"title":"t","type":"manga","artistID":3,"artist":"a","tags":[["猫","cat"],["犬"]],"thumb":null,"pages":2,"width":3,"height":4,"xRestrict":1,"aiType":2,"created":5,"bookmarks":6,"views":7"#
        let upsert = #""op":"upsert","restrict":"private","order":-3,"first":1.5,"seen":2"#
        func line(_ changes: String, seq: String = #""seq":4"#) -> [UInt8] {
            Array(#"{"crc":"00000000",\#(seq),"changes":[\#(changes)]}"#.utf8)
        }
        let lines: [[UInt8]] = [
            line("{\(upsert),\"illust\":{\(illust)}}"),
            line(#"{"restrict":"public","op":"upsert","order":1,"first":1,"seen":1,"illust":{"id":1}}"#),           // op not first
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"title":"x","id":1,"extra":[1,{"a":null}]}}"#),
            line(#"{ "op" : "upsert" , "restrict":"public","order":1,"first":1,"seen":1,"illust":{ "id" : 1 , "tags" : [ [ "a" , "b" ] ] } }"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"title":"q\"uo\\te\u00e9","tags":[["a\"b"],["c",null],["\u732b"]]}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"vanishedAt":9,"illust":{"id":1,"vanished":"deleted"}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"vanishedAt":9,"illust":{"id":1}}"#),   // visible: no date kept
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"id":2}}"#),          // a member twice
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"thumb":"https://i.pximg.net/c/360x360_70/img-master/img/2024/01/31/12/34/56/1_p0_square1200.jpg"}}"#),
            line(#"{"op":"remove","restrict":"private","id":3},{"op":"removeAll","restrict":"public"},{"op":"metadata","restrict":"public","metadata":{"schema":2,"lastFull":null,"lastDelta":3}}"#),
            line("{\(upsert),\"illust\":{\(illust)}}", seq: #""seq":4,"seq":5"#),
            line("{\(upsert),\"illust\":{\(illust)}}", seq: #""format":"bookmark-index-journal","seq":5"#),
            // Refused by the codec:
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"title":"no id"}}"#),
            line(#"{"op":"upsert","restrict":"secret","order":1,"first":1,"seen":1,"illust":{"id":1}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"illust":{"id":1}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"tags":[[]]}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"tags":[["a","b","c"]]}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"views":1.5}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"vanished":"stolen"}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"created":1e999}}"#),
            line(#"{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1}} x"#),
            line(#"{"op":"fly","restrict":"public"}"#),
            Array(line("", seq: #""seq":1"#).dropLast()),
            Array(#"{"seq":1}"#.utf8),
        ]
        for line in lines { Self.expectAgreement(line) }
        // The first ten are read (odd changes in them by the codec, change by change); a line
        // with `seq` twice or a header's member is given back whole.
        let read = lines.map { Self.rowDecoder($0) }.map { if case .batch = $0 { true } else { false } }
        #expect(read == Array(repeating: true, count: 10) + Array(repeating: false, count: lines.count - 10))
        // Invalid UTF-8 in a title and in a tag, both new to the rows.
        for (before, after) in [(#""title":""#, #"""#), (#""tags":[[""#, #""]]"#)] {
            let bytes = Array(#"{"seq":1,"changes":[{"op":"upsert","restrict":"public","order":1,"first":1,"seen":1,"illust":{"id":1,"#.utf8)
                + Array(before.utf8) + [0xFF] + Array(after.utf8) + Array("}}]}".utf8)
            #expect(Self.codec(bytes) == .refused)
            #expect(Self.rowDecoder(bytes) == .declined)
        }
    }
}
