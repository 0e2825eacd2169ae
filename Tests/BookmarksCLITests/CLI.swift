import BookmarkIndexTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// The `bookmarks` executable, run as a user would run it.
struct CLI {
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    static let executable: URL = {
        // The test bundle and the executable are built into the same products directory.
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidate = products.appendingPathComponent("bookmarks")
        if !FileManager.default.isExecutableFile(atPath: candidate.path) {
            // On Apple platforms the test bundle sits one level deeper.
            candidate = products.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("bookmarks")
        }
        return candidate
    }()

    /// Runs the tool and waits for it on a thread of its own, so that a test waiting for a
    /// process never holds one of Swift concurrency's few threads (other suites' loopback
    /// servers need them to answer).
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result { try runAndWait(arguments, input: input, environment: environment) })
            }.start()
        }
    }

    private static func runAndWait(_ arguments: [String], input: String?, environment: [String: String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = hermetic(environment)
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a full pipe cannot stall the child.
        let errorData = Mutex<Data?>(nil)
        let errorRead = DispatchSemaphore(value: 0)
        Thread {
            let data = error.fileHandleForReading.readToEndRetryingInterrupts()
            errorData.withLock { $0 = data }
            errorRead.signal()
        }.start()
        let outputData = output.fileHandleForReading.readToEndRetryingInterrupts()
        errorRead.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData.withLock { $0 } ?? Data(), as: UTF8.self)
        )
    }
}

extension CLI {
    /// An empty config directory: no test sees the session of whoever runs the tests.
    static let emptyConfigHome: String = {
        let directory = TestDirectories.make("bookmarks-cli-config")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.path
    }()

    /// This process's environment without Pixiv secrets, with no colour and an empty config
    /// directory, then `overrides`.
    static func hermetic(_ overrides: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIXIV_") }
        environment["NO_COLOR"] = "1"
        environment["XDG_CONFIG_HOME"] = emptyConfigHome
        for (key, value) in overrides { environment[key] = value }
        return environment
    }
}

/// `bookmarks serve-simulator` running as a child process, stopped (Ctrl-C) at the end.
final class Simulator: Sendable {
    let process: Process
    /// The simulator's base URL, as its banner prints it.
    let base: String
    /// Everything the banner printed before "Press Ctrl-C".
    let banner: String
    private let output: FileHandle

    init(_ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["serve-simulator"] + arguments
        process.environment = CLI.hermetic([:])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.output = output.fileHandleForReading
        banner = await readUntil("Press Ctrl-C", from: self.output)
        base = String(banner.firstMatch(of: /listening at (\S+)/)?.1 ?? "")
    }

    /// Stops the simulator as Ctrl-C does; returns what it printed after the banner.
    @discardableResult
    func stop() -> String {
        process.interrupt()
        // A simulator that does not stop within 20 s is a failure to see, not a hang.
        let deadline = Date() + 20
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return "[the simulator did not stop on Ctrl-C within 20 s and was killed]"
        }
        return String(decoding: output.readToEndRetryingInterrupts(), as: UTF8.self)
    }
}

/// Reads `handle` on a thread of its own until `marker` has appeared (or the end), and returns
/// all that was read.
func readUntil(_ marker: String, from handle: FileHandle) async -> String {
    await withCheckedContinuation { continuation in
        Thread {
            var seen = Data()
            while !String(decoding: seen, as: UTF8.self).contains(marker) {
                let chunk = handle.availableDataRetryingInterrupts()
                if chunk.isEmpty { break }
                seen.append(chunk)
            }
            continuation.resume(returning: String(decoding: seen, as: UTF8.self))
        }.start()
    }
}

/// Where `url` redirects: a GET that does not follow the redirect, as a browser's developer
/// tools show it.
func redirectLocation(of url: URL) async throws -> (status: Int, location: String?) {
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
    let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let (_, response) = try await session.data(from: url)
    let http = try #require(response as? HTTPURLResponse)
    return (http.statusCode, http.value(forHTTPHeaderField: "Location"))
}

/// `bookmarks login` run as a person would: it waits for the prompt, then types `answer(url)`
/// where `url` is the login address the tool printed.
func runLogin(
    _ arguments: [String], environment: [String: String] = [:],
    answer: @Sendable (URL) async throws -> String
) async throws -> (result: CLI.Result, printed: String) {
    let process = Process()
    process.executableURL = CLI.executable
    process.arguments = ["login"] + arguments
    process.environment = CLI.hermetic(environment)
    let output = Pipe(), error = Pipe(), input = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = input
    try process.run()
    let prompt = await readUntil("Address: ", from: output.fileHandleForReading)
    let printedURL = try #require(prompt.firstMatch(of: /(https?:\/\/\S+\/web\/v1\/login\?\S+)/)?.1, "no login address in: \(prompt)")
    let typed = try await answer(try #require(URL(string: String(printedURL))))
    input.fileHandleForWriting.write(Data((typed + "\n").utf8))
    try input.fileHandleForWriting.close()
    let rest = await readUntil("\u{0}", from: output.fileHandleForReading)
    let errors = await readUntil("\u{0}", from: error.fileHandleForReading)
    await waitForExit(process)
    return (CLI.Result(status: process.terminationStatus, output: prompt + rest, error: errors), prompt)
}

/// Waits for `process` to exit on a thread of its own, so no task blocks.
func waitForExit(_ process: Process) async {
    await withCheckedContinuation { continuation in
        Thread {
            process.waitUntilExit()
            continuation.resume()
        }.start()
    }
}

/// The temporary directories the tests make, removed when the test process exits: a suite
/// struct has no teardown, and the demo store and the empty config directory serve the whole
/// run.
enum TestDirectories {
    private static let made = Mutex<[URL]>([])
    private static let removalAtExit: Void = {
        atexit { TestDirectories.removeAll() }
    }()

    /// A new directory's URL under the temporary directory, named `prefix`-UUID (not created).
    static func make(_ prefix: String) -> URL {
        _ = removalAtExit
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        made.withLock { $0.append(url) }
        return url
    }

    private static func removeAll() {
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }
}
