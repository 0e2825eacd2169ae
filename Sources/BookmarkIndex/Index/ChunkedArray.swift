/// An array that only grows, kept in chunks of ``chunkSize`` elements.
///
/// A copy held elsewhere shares the chunks, as an array shares its buffer; but where appending
/// to a shared array copies all of it, appending to a shared chunked array copies the list of
/// chunks and the last one only. The tag table keeps its pairs this way, so that the pages of
/// rows a query hands out (``BookmarkRows``) can hold them at no cost to the writes that follow.
struct ChunkedArray<Element>: RandomAccessCollection {
    /// Elements a chunk holds: a copy of the last chunk is at most this many.
    static var chunkSize: Int { 1 << chunkShift }
    private static var chunkShift: Int { 10 }

    private(set) var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    init(_ elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "index out of range")
        return chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)]
    }

    mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }
}

extension ChunkedArray: Sendable where Element: Sendable {}

extension ResidentBytes {
    /// A chunked array's buffers: the list of chunks, and each chunk's room for
    /// ``ChunkedArray/chunkSize`` elements (made with it, so never read). O(1), as the other
    /// estimates are.
    static func of<Element>(_ array: ChunkedArray<Element>) -> Int {
        of(array.chunks) + array.chunks.count * (objectHeader + ChunkedArray<Element>.chunkSize * MemoryLayout<Element>.stride)
    }
}
