import Foundation

/// A thumbnail URL as a row keeps it: Pixiv's shape in a few bytes, anything else verbatim.
///
/// Nearly every thumbnail Pixiv's app API sends is
/// `https://i.pximg.net/c/360x360_70/img-master/img/2024/01/31/12/34/56/123456789_p0_square1200.jpg`:
/// a size, a folder, the time the work was uploaded, the work's own ID and a variant. Kept as
/// text, that is over 90 bytes a row, a fifth of all the index holds; coded, it is a byte for
/// the folder and variant, one for the size (its number in ``knownSizes``, or the size spelled
/// out), and the fourteen digits of the time in seven: 9 bytes, with the ID taken from the row.
///
/// The first byte says which: `0`, the URL's UTF-8 follows; `1` to `6`, the coded shape, the
/// byte less one being the folder (bit 0) and the variant (above it). Decoding
/// gives back the exact URL encoded, for any URL. The bytes live only in memory and in the
/// checkpoint (format 4); the journal keeps the URL as text.
enum ThumbnailCode {
    /// Sizes Pixiv serves thumbnails in, by number: the first is what the app API's
    /// `square_medium` uses.
    static let knownSizes: [[UInt8]] = [
        "360x360_70", "540x540_70", "600x1200_90", "250x250_80_a2", "128x128", "150x150", "240x240",
        "360x360_10_webp", "540x540_10_webp", "600x1200_90_webp", "250x250_80_a2_webp",
    ].map { Array($0.utf8) }

    private static let verbatim: UInt8 = 0
    /// The size byte that says the size follows, spelled out after a length byte.
    private static let spelledSize: UInt8 = 255
    private static let host = Array("https://i.pximg.net/c/".utf8)
    private static let folders = ["img-master", "custom-thumb"].map { Array($0.utf8) }
    private static let variants = ["square1200", "master1200", "custom1200"].map { Array($0.utf8) }
    private static let imageFolder = Array("/img/".utf8)
    private static let page = Array("_p0_".utf8)
    private static let fileExtension = Array(".jpg".utf8)
    private static let slash = UInt8(ascii: "/")

    /// The bytes a row keeps for `url`, the thumbnail of illust `illustID`.
    static func encode(_ url: String, illustID: Int) -> [UInt8] {
        var url = url
        var coded: [UInt8] = []
        url.withUTF8 { append($0, illustID: illustID, to: &coded) }
        return coded
    }

    /// Appends to `coded` the bytes a row keeps for the URL whose UTF-8 is `url`, the
    /// thumbnail of illust `illustID`.
    static func append(_ url: UnsafeBufferPointer<UInt8>, illustID: Int, to coded: inout [UInt8]) {
        let start = coded.count
        if !appendShapedCode(url, illustID: illustID, to: &coded) {
            coded.removeSubrange(start...)
            coded.append(verbatim)
            coded.append(contentsOf: url)
        }
    }

    /// The URL `bytes` keep, for illust `illustID`; bytes that are no code (only a damaged
    /// checkpoint could hold them, and its checksum refuses it first) read as text.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, illustID: Int) -> String {
        guard let first = bytes.first else { return "" }
        let rest = UnsafeBufferPointer(rebasing: bytes.dropFirst())
        if first != verbatim, let shape = shape(kinds: first - 1, rest, illustID: illustID) {
            return String(unsafeUninitializedCapacity: shape.length) { url in
                fill(shape, illustID: illustID, into: url.baseAddress!)
                return shape.length
            }
        }
        return String(decoding: rest, as: UTF8.self)
    }

    /// Calls `body` with the UTF-8 of the URL `bytes` keep (what ``decode(_:illustID:)``
    /// gives), made in a temporary buffer rather than a string: for writing it out.
    static func withURL<Result>(_ bytes: UnsafeBufferPointer<UInt8>, illustID: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        guard let first = bytes.first else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let rest = UnsafeBufferPointer(rebasing: bytes.dropFirst())
        guard first != verbatim, let shape = shape(kinds: first - 1, rest, illustID: illustID) else {
            return body(UnsafeRawBufferPointer(rest))
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: shape.length) { url in
            fill(shape, illustID: illustID, into: url.baseAddress!)
            return body(UnsafeRawBufferPointer(url))
        }
    }

    // MARK: The shape

    /// Appends the shaped code of `url` to `coded` and returns `true`; `false` for a URL of
    /// another shape, with what was written of the code left for the caller to cut off.
    private static func appendShapedCode(_ url: UnsafeBufferPointer<UInt8>, illustID: Int, to coded: inout [UInt8]) -> Bool {
        var reader = Reader(bytes: url)
        guard illustID >= 0, reader.skip(host) else { return false }
        let size = reader.take(until: slash)
        guard !size.isEmpty, size.count < Int(spelledSize), reader.skip(slash) else { return false }
        guard let folder = folders.firstIndex(where: { reader.skip($0) }), reader.skip(imageFolder) else { return false }
        // Written as it is read: the first byte is set once the variant is known.
        let start = coded.count
        coded.append(0)
        if let known = knownSizes.firstIndex(where: { $0.elementsEqual(size) }) {
            coded.append(UInt8(known))
        } else {
            coded.append(spelledSize)
            coded.append(UInt8(size.count))
            coded.append(contentsOf: size)
        }
        // YYYY/MM/DD/hh/mm/ss: seven pairs of digits, a byte each.
        for field in 0..<6 {
            for _ in 0..<(field == 0 ? 2 : 1) {
                guard let pair = reader.digitPair() else { return false }
                coded.append(pair)
            }
            guard reader.skip(slash) else { return false }
        }
        guard reader.skip(decimal: illustID), reader.skip(page),
              let variant = variants.firstIndex(where: { reader.skip($0) }),
              reader.skip(fileExtension), reader.isAtEnd else { return false }
        coded[start] = 1 + (UInt8(folder) | UInt8(variant) << 1)
        return true
    }

    /// Everything before the time, for each known size (by number) and folder.
    private static let knownPrefixes: [[[UInt8]]] = knownSizes.map { size in folders.map { folder in prefix(size: size[...], folder: folder) } }

    private static func prefix(size: ArraySlice<UInt8>, folder: [UInt8]) -> [UInt8] {
        host + size + [slash] + folder + imageFolder
    }

    /// The URL a shaped code gives, laid out: what ``fill(_:illustID:into:)`` writes.
    private struct Shape {
        var prefix: [UInt8]
        /// The seven pairs of digits of the time, a byte each.
        var time: UnsafeBufferPointer<UInt8>.SubSequence
        var digits: Int
        var suffix: [UInt8]

        /// The prefix, 7 pairs of digits with 6 slashes after them, the ID, "_p0_", the variant, ".jpg".
        var length: Int { prefix.count + 20 + digits + page.count + suffix.count + fileExtension.count }
    }

    private static func shape(kinds: UInt8, _ code: UnsafeBufferPointer<UInt8>, illustID: Int) -> Shape? {
        var reader = Reader(bytes: code)
        guard let sizeByte = reader.byte(), illustID >= 0 else { return nil }
        let (folder, variant) = (Int(kinds & 1), Int(kinds >> 1))
        guard variant < variants.count else { return nil }
        let prefix: [UInt8]
        if sizeByte == spelledSize {
            guard let length = reader.byte() else { return nil }
            let size = reader.take(Int(length))
            guard size.count == Int(length) else { return nil }
            prefix = Self.prefix(size: ArraySlice(size), folder: folders[folder])
        } else {
            guard Int(sizeByte) < knownSizes.count else { return nil }
            prefix = knownPrefixes[Int(sizeByte)][folder]
        }
        let time = reader.take(7)
        guard time.count == 7, reader.isAtEnd, time.allSatisfy({ $0 >> 4 < 10 && $0 & 15 < 10 }) else { return nil }
        return Shape(prefix: prefix, time: time, digits: decimalDigits(illustID), suffix: variants[variant])
    }

    /// Writes the URL `shape` lays out, `shape.length` bytes, at `start`.
    private static func fill(_ shape: Shape, illustID: Int, into start: UnsafeMutablePointer<UInt8>) {
        var next = start
        func put(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { next.update(from: $0.baseAddress!, count: $0.count) }
            next += bytes.count
        }
        put(shape.prefix)
        for index in 0..<7 {
            let pair = shape.time[shape.time.startIndex + index]
            next[0] = UInt8(ascii: "0") + pair >> 4
            next[1] = UInt8(ascii: "0") + pair & 15
            next[2] = slash
            // The year's two pairs are one field.
            next += index == 0 ? 2 : 3
        }
        var value = illustID
        for position in (0..<shape.digits).reversed() {
            next[position] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
        }
        next += shape.digits
        put(page)
        put(shape.suffix)
        put(fileExtension)
    }

    /// How many decimal digits `value` (not negative) has.
    private static func decimalDigits(_ value: Int) -> Int {
        var digits = 1, bound = 10
        while digits < 19 && value >= bound {
            digits += 1
            bound &*= 10
        }
        return digits
    }

    /// Reads a buffer from the front.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// Skips `expected` when the bytes go on with it.
        mutating func skip(_ expected: [UInt8]) -> Bool {
            guard !expected.isEmpty, bytes.count - offset >= expected.count,
                  expected.withUnsafeBufferPointer({ memcmp(bytes.baseAddress! + offset, $0.baseAddress!, expected.count) }) == 0
            else { return false }
            offset += expected.count
            return true
        }

        /// Skips the decimal digits of `value` (not negative), as `String(value)` spells them.
        mutating func skip(decimal value: Int) -> Bool {
            let digits = ThumbnailCode.decimalDigits(value)
            guard bytes.count - offset >= digits else { return false }
            var rest = value
            for position in (0..<digits).reversed() {
                guard bytes[offset + position] == UInt8(ascii: "0") + UInt8(rest % 10) else { return false }
                rest /= 10
            }
            offset += digits
            return true
        }

        mutating func skip(_ expected: UInt8) -> Bool {
            guard offset < bytes.count, bytes[offset] == expected else { return false }
            offset += 1
            return true
        }

        /// Up to `count` bytes.
        mutating func take(_ count: Int) -> UnsafeBufferPointer<UInt8>.SubSequence {
            let end = min(bytes.count, offset + count)
            defer { offset = end }
            return bytes[offset..<end]
        }

        /// The bytes before the next `delimiter` (or the end).
        mutating func take(until delimiter: UInt8) -> UnsafeBufferPointer<UInt8>.SubSequence {
            let end = bytes[offset...].firstIndex(of: delimiter) ?? bytes.count
            defer { offset = end }
            return bytes[offset..<end]
        }

        /// Two decimal digits as one byte (the first in the high four bits), or `nil`.
        mutating func digitPair() -> UInt8? {
            guard bytes.count - offset >= 2 else { return nil }
            let (high, low) = (bytes[offset] &- UInt8(ascii: "0"), bytes[offset + 1] &- UInt8(ascii: "0"))
            guard high < 10, low < 10 else { return nil }
            offset += 2
            return high << 4 | low
        }
    }
}
