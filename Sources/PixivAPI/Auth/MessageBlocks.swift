/// Cuts a message into the padded 64-byte blocks that ``MD5`` and ``SHA256`` compress.
///
/// Both digests pad alike: a 0x80 byte, zeros up to 8 bytes short of a block boundary, then the
/// message's length in bits as a 64-bit integer, little-endian for MD5 (RFC 1321 §3.1–3.2) and
/// big-endian for SHA-256 (FIPS 180-4 §5.1.1). Full blocks of contiguous input (an array, a
/// native string's UTF-8) are handed over in place; any other sequence passes through one
/// 64-byte buffer on the stack, so nothing is allocated per byte or per block.
enum MessageBlocks {
    /// The size of a block, in bytes.
    static let size = 64

    /// How the message length that ends the padding is written.
    enum LengthOrder {
        case littleEndian
        case bigEndian
    }

    /// Calls `compress` with each block of `message` and its padding, in order.
    ///
    /// The buffer handed to `compress` is exactly ``size`` bytes and valid only during the call.
    static func forEach<Bytes: Sequence>(
        in message: Bytes,
        lengthOrder: LengthOrder,
        _ compress: (UnsafeRawBufferPointer) -> Void
    ) where Bytes.Element == UInt8 {
        withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
            var pending = 0  // bytes in `buffer` waiting for the rest of their block
            var length: UInt64 = 0  // bytes in the message
            let wasContiguous: Void? = message.withContiguousStorageIfAvailable { elements in
                let bytes = UnsafeRawBufferPointer(elements)
                var offset = 0
                while bytes.count - offset >= size {
                    compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]))
                    offset += size
                }
                pending = bytes.count - offset
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                length = UInt64(bytes.count)
            }
            if wasContiguous == nil {
                for byte in message {
                    buffer[pending] = byte
                    pending += 1
                    if pending == size {
                        compress(UnsafeRawBufferPointer(buffer))
                        pending = 0
                    }
                    length &+= 1
                }
            }

            buffer[pending] = 0x80
            pending += 1
            if pending > size - 8 {  // no room left for the length: it goes in one more block
                buffer[pending...].initializeMemory(as: UInt8.self, repeating: 0)
                compress(UnsafeRawBufferPointer(buffer))
                pending = 0
            }
            buffer[pending..<size - 8].initializeMemory(as: UInt8.self, repeating: 0)
            let bits = length &* 8  // modulo 2^64, as RFC 1321 says; FIPS 180-4 stops short of it
            let lengthField = lengthOrder == .bigEndian ? bits.bigEndian : bits.littleEndian
            buffer.storeBytes(of: lengthField, toByteOffset: size - 8, as: UInt64.self)
            compress(UnsafeRawBufferPointer(buffer))
        }
    }
}
