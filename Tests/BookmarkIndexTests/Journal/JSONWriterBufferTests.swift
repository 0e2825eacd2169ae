import BookmarkJSON
import Foundation
import Testing

/// The writer's buffer: whatever its starting capacity, every kind of write lands in order
/// across the places where it grows, and the bytes come out exactly as written.
@Suite("JSON writer buffer")
struct JSONWriterBufferTests {
    /// One of each write, with the bytes it should add.
    static func writeAll(_ writer: inout JSONWriter, round: Int) -> [UInt8] {
        var expected: [UInt8] = []
        writer.byte(UInt8(ascii: "["))
        expected += Array("[".utf8)
        writer.key(round % 3 == 0 ? "k" : "key", afterComma: round % 2 == 0)
        expected += Array(((round % 2 == 0 ? "," : "") + (round % 3 == 0 ? "\"k\":" : "\"key\":")).utf8)
        writer.int(-round * 7_919)
        expected += Array(String(-round * 7_919).utf8)
        writer.int(Int64.min + Int64(round))
        expected += Array(String(Int64.min + Int64(round)).utf8)
        let text = String(repeating: "夏a\"", count: round % 5) + String(repeating: "x", count: round % 40)
        writer.string(text)
        expected += Array(Self.quoted(text).utf8)
        writer.raw("null")
        expected += Array("null".utf8)
        let long = [UInt8](repeating: UInt8(ascii: "z"), count: round % 70)
        long.withUnsafeBytes { writer.raw($0) }
        expected += long
        writer.raw("1e5".utf8)
        expected += Array("1e5".utf8)
        return expected
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    @Test(arguments: [0, 1, 7, 64, 1_000])
    func writesLandInOrderAcrossGrowth(capacity: Int) {
        var writer = JSONWriter(capacity: capacity)
        var expected: [UInt8] = []
        for round in 0..<200 {
            expected += Self.writeAll(&writer, round: round)
            #expect(writer.count == expected.count)
        }
        #expect(writer.bytes == expected)
        writer.withUnsafeBytes { #expect(Array($0) == expected) }
    }

    @Test func takingTheBytesEmptiesTheWriterWhichWritesAgain() {
        var writer = JSONWriter(capacity: 4_096)
        let first = Self.writeAll(&writer, round: 11)
        #expect(writer.takeBytes() == first)
        #expect(writer.count == 0 && writer.bytes.isEmpty)
        let second = Self.writeAll(&writer, round: 12)
        #expect(writer.bytes == second)
    }

    @Test func bytesWrittenCanBeChangedInPlace() {
        var writer = JSONWriter(capacity: 2)
        writer.raw("abcdef")
        writer.withUnsafeMutableBytes { bytes in
            #expect(bytes.count == 6)
            bytes[0] = UInt8(ascii: "A")
            bytes[5] = UInt8(ascii: "F")
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "AbcdeF")
    }
}
