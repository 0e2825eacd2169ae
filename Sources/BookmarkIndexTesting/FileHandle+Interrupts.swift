import Foundation
#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
#endif

/// Reads from a pipe the way a test of a child process needs: Foundation on Linux traps when a
/// read is interrupted by a signal (EINTR, as a child process exiting elsewhere in the test
/// run delivers SIGCHLD), so these read with `read(2)` and try again.
extension FileHandle {
    /// The bytes that are ready, or else the next ones to arrive (blocking until some do); empty
    /// at the end of the file. What `availableData` returns.
    public func availableDataRetryingInterrupts() -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer.prefix(count)) }
            if errno != EINTR { return Data() }
        }
    }

    /// Every byte up to the end of the file. What `readDataToEndOfFile()` returns.
    public func readToEndRetryingInterrupts() -> Data {
        var data = Data()
        while true {
            let chunk = availableDataRetryingInterrupts()
            if chunk.isEmpty { return data }
            data += chunk
        }
    }
}
