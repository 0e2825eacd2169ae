/// What filters, facets and sorts scan, by slot, in columns a few bytes wide: a row's
/// attributes packed in one byte, and its artist as an index into the list's artists.
///
/// A query that tests every row of a list (a count, a facet, a sort) reads these instead of the
/// rows (150-odd bytes each), and reads a row only once its byte passed: a list of 100,000 rows
/// is 100 KB of attributes and 400 KB of artists. Derived from the rows, kept current by every
/// write, and rebuilt when a list is read from a checkpoint; never stored.
struct FacetColumns: Sendable {
    /// Each slot's ``Attributes`` byte; 0 for an empty slot.
    private(set) var attributes: [UInt8] = []
    /// Each slot's artist, as an index into ``artistIDs``.
    private(set) var artistOfSlot: [UInt32] = []
    /// Every artist ID the list's rows have had, by index; an artist stays once its rows are
    /// gone (until the list is cleared), so indexes never move.
    private(set) var artistIDs: [Int] = []
    private var artistIndexByID: [Int: UInt32] = [:]
    /// How many of the list's rows each artist (by index) has, of works Pixiv shows and of
    /// vanished ones: what ``BookmarkIndexState/topArtists(in:matching:limit:)`` counts for a
    /// filter of visibility only, without a pass over the rows.
    private(set) var visibleRowsOfArtist: [Int32] = []
    private(set) var vanishedRowsOfArtist: [Int32] = []

    /// A row's attributes in one byte: whether the slot holds a row (bit 7), whether the work
    /// vanished (bit 6), its kind (bits 4–5: illust, manga, ugoira, other), its age rating
    /// (bits 2–3: all ages, R-18, R-18G, other) and its AI kind (bits 0–1: unknown, not AI, AI).
    enum Attributes {
        static let live: UInt8 = 0x80
        static let vanished: UInt8 = 0x40
        /// The kind code of a type none of Pixiv's three.
        static let otherType: UInt8 = 3
        /// The rating code of an `x_restrict` none of Pixiv's three.
        static let otherRating: UInt8 = 3

        static func make(isVisible: Bool, typeCode: UInt8, xRestrict: Int, aiType: Int) -> UInt8 {
            let rating: UInt8 = (0...2).contains(xRestrict) ? UInt8(xRestrict) : otherRating
            let ai: UInt8 = switch AIKind(illustAIType: aiType) {
            case .unknown: 0
            case .notAIGenerated: 1
            case .aiGenerated: 2
            }
            return live | (isVisible ? 0 : vanished) | typeCode << 4 | rating << 2 | ai
        }

        static func typeCode(_ byte: UInt8) -> UInt8 { byte >> 4 & 3 }
        static func ratingCode(_ byte: UInt8) -> UInt8 { byte >> 2 & 3 }
        static func aiCode(_ byte: UInt8) -> UInt8 { byte & 3 }
        static func isVisible(_ byte: UInt8) -> Bool { byte & vanished == 0 }

        /// The code of the type whose raw value is `rawValue`'s bytes (see ``typeCode(of:)``).
        static func typeCode(ofRawValue rawValue: UnsafeBufferPointer<UInt8>) -> UInt8 {
            for (code, bytes) in typeRawValues.enumerated() where bytes.elementsEqual(rawValue) { return UInt8(code) }
            return otherType
        }

        private static let typeRawValues = types.map { Array($0.rawValue.utf8) }

        /// The code of `type`: 0 illust, 1 manga, 2 ugoira, 3 any other.
        static func typeCode(of type: IllustType) -> UInt8 {
            switch type {
            case .illust: 0
            case .manga: 1
            case .ugoira: 2
            default: otherType
            }
        }

        /// The kinds of codes 0 to 2.
        static let types: [IllustType] = [.illust, .manga, .ugoira]
        /// The ratings of codes 0 to 2.
        static let ratings: [AgeRating] = [.allAges, .r18, .r18g]
        /// The AI kinds of codes 0 to 2.
        static let aiKinds: [AIKind] = [.unknown, .notAIGenerated, .aiGenerated]
    }

    /// Records `row`, of kind code `typeCode`, in `slot`.
    mutating func set(_ row: ListIndex.Row, typeCode: UInt8, at slot: Int32) {
        let index = Int(slot)
        if index >= attributes.count {
            attributes.append(contentsOf: repeatElement(0, count: index + 1 - attributes.count))
            artistOfSlot.append(contentsOf: repeatElement(0, count: index + 1 - artistOfSlot.count))
        }
        countRow(at: index, by: -1)
        attributes[index] = Attributes.make(isVisible: row.isVisible, typeCode: typeCode, xRestrict: row.xRestrict, aiType: row.aiType)
        artistOfSlot[index] = intern(artist: row.artistID)
        countRow(at: index, by: 1)
    }

    /// Counts the row in `index`, if the slot holds one, in (`change` 1) or out (-1) of its
    /// artist's rows.
    private mutating func countRow(at index: Int, by change: Int32) {
        let byte = attributes[index]
        guard byte != 0 else { return }
        let artist = Int(artistOfSlot[index])
        if Attributes.isVisible(byte) { visibleRowsOfArtist[artist] += change } else { vanishedRowsOfArtist[artist] += change }
    }

    /// Records `row` in `slot`, its kind as the slot's already is (a placeholder keeping a row's
    /// content changes its visibility only).
    mutating func update(_ row: ListIndex.Row, at slot: Int32) {
        set(row, typeCode: Attributes.typeCode(attributes[Int(slot)]), at: slot)
    }

    /// Marks `slot` empty.
    mutating func clear(_ slot: Int32) {
        countRow(at: Int(slot), by: -1)
        attributes[Int(slot)] = 0
    }

    /// The index of `artistID`, or `nil` when no row of the list has had it.
    func artistIndex(of artistID: Int) -> UInt32? {
        artistIndexByID[artistID]
    }

    private mutating func intern(artist id: Int) -> UInt32 {
        if let index = artistIndexByID[id] { return index }
        let index = UInt32(artistIDs.count)
        artistIDs.append(id)
        artistIndexByID[id] = index
        visibleRowsOfArtist.append(0)
        vanishedRowsOfArtist.append(0)
        return index
    }

    /// The columns of `rows` (a checkpoint's, read back), every row's kind taken for an
    /// illust until ``fillTypes(of:)`` reads the kinds from the text arena: so that this part,
    /// which interns the artists, can run before the arena is read. O(n).
    init(rows: [ListIndex.Row]) {
        attributes.reserveCapacity(rows.count)
        artistOfSlot.reserveCapacity(rows.count)
        for (slot, row) in rows.enumerated() {
            if row.isLive {
                set(row, typeCode: 0, at: Int32(slot))
            } else {
                attributes.append(0)
                artistOfSlot.append(0)
            }
        }
    }

    /// Sets the kind of each of `list`'s rows from its text arena. O(n), comparing a few bytes
    /// a row.
    mutating func fillTypes(of list: ListIndex) {
        for (slot, row) in list.slots.enumerated() where row.isLive {
            let code = Attributes.typeCode(of: list.type(of: row))
            if code != 0 { attributes[slot] = attributes[slot] & ~(3 << 4) | code << 4 }
        }
    }

    /// Empty columns.
    init() {}

    /// The heap bytes of the columns, room to grow included. O(1).
    var residentBytes: Int {
        ResidentBytes.of(attributes) + ResidentBytes.of(artistOfSlot) + ResidentBytes.of(artistIDs)
            + ResidentBytes.of(artistIndexByID) + ResidentBytes.of(visibleRowsOfArtist) + ResidentBytes.of(vanishedRowsOfArtist)
    }
}

extension ListIndex {
    /// The row's kind.
    func type(of row: Row) -> IllustType {
        Self.type(of: row, in: text)
    }

    /// The kind of `row`, whose texts are in `text` (its list's arena).
    static func type(of row: Row, in text: [UInt8]) -> IllustType {
        let offset = row.textStart + Int(row.titleLength) + Int(row.artistNameLength) + Int(row.thumbnailLength)
        return text.withUnsafeBufferPointer { IllustType(utf8: UnsafeBufferPointer(rebasing: $0[offset..<offset + Int(row.typeLength)])) }
    }
}
