@testable import BookmarkIndex
import Testing

/// Interning keys a tag by its bytes: a (name, translation) pair once, a name once.
@Suite("Tag table")
struct TagTableTests {
    @Test func aPairIsInternedOnceByItsBytes() {
        var table = TagTable()
        let composed = "が", decomposed = "\u{304B}\u{3099}"
        let pairs = [
            ArtworkTag(name: "猫"), ArtworkTag(name: "猫", translatedName: "cat"), ArtworkTag(name: "猫cat"),
            ArtworkTag(name: "猫", translatedName: ""), ArtworkTag(name: ""), ArtworkTag(name: composed), ArtworkTag(name: decomposed),
            ArtworkTag(name: composed, translatedName: decomposed),
        ]
        let refs = pairs.map { table.intern($0) }
        #expect(refs == (0..<UInt32(pairs.count)).map { $0 }, "every pair is new: \(refs)")
        // Interned again, in another order and from strings made anew, each finds its own.
        for (pair, ref) in zip(pairs, refs).reversed() {
            let copy = ArtworkTag(name: String(decoding: Array(pair.name.utf8), as: UTF8.self),
                              translatedName: pair.translatedName.map { String(decoding: Array($0.utf8), as: UTF8.self) })
            #expect(table.intern(copy) == ref, "\(pair)")
        }
        #expect(Array(table.refs) == pairs)
        // Names: 猫 once for its three pairs; the two normalizations apart.
        #expect(table.names == ["猫", "猫cat", "", composed, decomposed])
        #expect(table.nameOfRef == [0, 0, 1, 0, 2, 3, 4, 3])
    }

    /// Enough pairs to grow the table many times over, each found again after.
    @Test func thousandsOfPairsAreFoundAgain() {
        var table = TagTable()
        let pairs = (0..<3_000).map { ArtworkTag(name: "tag \($0 % 1_000)", translatedName: $0 < 1_000 ? nil : "t \($0)") }
        let refs = pairs.map { table.intern($0) }
        #expect(refs == pairs.indices.map(UInt32.init))
        #expect(pairs.map { table.intern($0) } == refs)
        #expect(table.count == 1_000)
    }
}
