import BookmarkJSON
import Foundation

// The checkpoint's two sections that are not raw arrays: the tag table and the lists' metadata.

extension IndexCheckpoint {
    /// The tag table: each pair's name, then 1 and its translation or 0, strings as a 4-byte
    /// length and their UTF-8.
    static func encodeTags(_ refs: some Collection<ArtworkTag>) -> [UInt8] {
        var bytes: [UInt8] = []
        func append(_ string: String) {
            var string = string
            string.withUTF8 { utf8 in
                withUnsafeBytes(of: UInt32(utf8.count)) { bytes.append(contentsOf: $0) }
                bytes.append(contentsOf: utf8)
            }
        }
        for ref in refs {
            append(ref.name)
            if let translation = ref.translatedName {
                bytes.append(1)
                append(translation)
            } else {
                bytes.append(0)
            }
        }
        return bytes
    }

    /// Both lists' metadata, as the journal writes a metadata change, in a JSON array.
    static func encodeMetadata(_ state: BookmarkIndexState) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.byte(UInt8(ascii: "["))
        for restrict in Restrict.allCases {
            if restrict != Restrict.allCases.first { writer.byte(UInt8(ascii: ",")) }
            JournalCodec.appendChange(.setMetadata(state.metadata(for: restrict), for: restrict), to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
        return writer.takeBytes()
    }

    /// The pairs ``encodeTags(_:)`` wrote; refused when cut short.
    static func decodeTags(_ bytes: [UInt8]) throws -> [ArtworkTag] {
        var refs: [ArtworkTag] = []
        var offset = 0
        func string() throws -> String {
            guard offset + 4 <= bytes.count else { throw Unusable(reason: "its tag table is cut short") }
            let length = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) })
            offset += 4
            guard length <= bytes.count - offset else { throw Unusable(reason: "its tag table is cut short") }
            defer { offset += length }
            return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
        }
        while offset < bytes.count {
            let name = try string()
            guard offset < bytes.count else { throw Unusable(reason: "its tag table is cut short") }
            let hasTranslation = bytes[offset] == 1
            offset += 1
            refs.append(ArtworkTag(name: name, translatedName: hasTranslation ? try string() : nil))
        }
        return refs
    }

    /// The metadata ``encodeMetadata(_:)`` wrote; refused when it holds anything else.
    static func decodeMetadata(_ bytes: [UInt8]) throws -> [BookmarkIndexMetadata] {
        var metadata = [BookmarkIndexMetadata(), BookmarkIndexMetadata()]
        do {
            try bytes.withUnsafeBytes { buffer in
                var reader = JSONReader(buffer)
                try reader.readArray { reader in
                    guard case .setMetadata(let value, let restrict) = try JournalCodec.decodeChange(&reader) else {
                        throw Unusable(reason: "its metadata holds something else")
                    }
                    metadata[restrict.listIndex] = value
                }
                try reader.expectEnd()
            }
        } catch let error as Unusable {
            throw error
        } catch {
            throw Unusable(reason: "its metadata cannot be read: \(error)")
        }
        return metadata
    }
}
