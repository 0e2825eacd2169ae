import BookmarkIndex
import Foundation

/// Item 7: the memory an open costs, measured in a child process (this executable run with
/// ``flag``) so that nothing the parent allocated for earlier items is counted.
///
/// The child reads `VmRSS` before the open, then `VmHWM` (the peak) and `VmRSS` after it;
/// the figure per bookmark is (peak after open − resident before open) / bookmarks. The peak
/// includes whatever the open held only briefly, such as the journal's bytes while replaying.
enum MemoryProbe {
    static let flag = "--measure-open-memory"

    struct Result {
        var residentBefore: Int
        var peakAfter: Int
        var residentAfter: Int
        var bookmarks: Int

        var peakBytesPerBookmark: Double { Double(peakAfter - residentBefore) / Double(max(bookmarks, 1)) }
        var residentBytesPerBookmark: Double { Double(residentAfter - residentBefore) / Double(max(bookmarks, 1)) }
    }

    /// The child's side: opens the store in `directory` and prints the four numbers.
    static func runChild(directory: String) async throws {
        guard let before = statusBytes("VmRSS") else { throw HarnessError("/proc/self/status has no VmRSS") }
        let store = try await BookmarksIndexStore.open(directory: URL(fileURLWithPath: directory, isDirectory: true))
        guard let peak = statusBytes("VmHWM"), let after = statusBytes("VmRSS") else {
            throw HarnessError("/proc/self/status has no VmHWM")
        }
        let count = await store.count(in: .public) + store.count(in: .private)
        print(before, peak, after, count)
        try await store.close()
    }

    /// The parent's side: runs the child on `directory` (whose store must not be open here).
    /// `nil` where there is no `/proc` (macOS).
    static func measure(directory: URL) throws -> Result? {
        guard let numbers = try childNumbers([flag, directory.path], count: 4) else { return nil }
        return Result(residentBefore: numbers[0], peakAfter: numbers[1], residentAfter: numbers[2], bookmarks: numbers[3])
    }

    /// Runs this executable with `arguments` in a child process and returns the `count` whole
    /// numbers it prints on one line; `nil` where there is no `/proc` (macOS).
    static func childNumbers(_ arguments: [String], count: Int) throws -> [Int]? {
        guard FileManager.default.fileExists(atPath: "/proc/self/status") else { return nil }
        guard let executable = Bundle.main.executableURL else { throw HarnessError("cannot find this executable") }
        let child = Process()
        child.executableURL = executable
        child.arguments = arguments
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let numbers = text.split(separator: " ").compactMap { Int($0) }
        guard child.terminationStatus == 0, numbers.count == count else {
            throw HarnessError("the memory probe \(arguments[0]) failed (status \(child.terminationStatus)): \(text)")
        }
        return numbers
    }

    /// A `kB` line of `/proc/self/status`, in bytes.
    static func statusBytes(_ key: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
        }
        return nil
    }
}
