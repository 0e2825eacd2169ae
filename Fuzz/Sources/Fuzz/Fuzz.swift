import CFuzzDriver
import Foundation

/// One fuzz target: what it makes once, and what it does with each input.
protocol FuzzTarget {
    /// The name given on the command line.
    static var name: String { get }
    /// Makes what every input needs (a journal, a store); called once, before the first input.
    init() throws
    /// Feeds one input to the library. A trap, or a `fatalError` for a broken promise (an error
    /// of the wrong type, a reopened store that differs), is what libFuzzer records as a crash.
    func run(_ input: [UInt8])
    /// The seed inputs, made from the test suite's fixtures.
    static func seeds() throws -> [[UInt8]]
}

/// `Fuzz <target> [libFuzzer options and corpus directories]`, or `Fuzz seeds <directory>` to
/// write every target's seed inputs to `<directory>/<target>/`.
@main
enum Fuzz {
    static var targets: [any FuzzTarget.Type] {
        [
            JournalTarget.self, CheckpointTarget.self, PixivBodyTarget.self, LoginPasteTarget.self,
            SyncRecordTarget.self, StoreOperationsTarget.self,
        ]
    }

    static func main() throws {
        var arguments = CommandLine.arguments
        guard arguments.count >= 2 else { usage() }
        let name = arguments.remove(at: 1)
        if name == "seeds", arguments.count == 2 {
            try writeSeeds(to: URL(fileURLWithPath: arguments[1]))
            return
        }
        guard let target = targets.first(where: { $0.name == name }) else { usage() }
        let instance = try target.init()
        Current.run = instance.run
        // libFuzzer takes the remaining arguments as its own, the program's name first.
        var cArguments = arguments.map { strdup($0) }
        cArguments.append(nil)
        var argc = Int32(arguments.count)
        let status = cArguments.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput)
        }
        exit(status)
    }

    static func usage() -> Never {
        let names = targets.map { $0.name }.joined(separator: "|")
        FileHandle.standardError.write(Data("usage: Fuzz <\(names)> [libFuzzer options] [corpus directories]\n       Fuzz seeds <directory>\n".utf8))
        exit(2)
    }

    static func writeSeeds(to directory: URL) throws {
        for target in targets {
            let folder = directory.appendingPathComponent(target.name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (number, seed) in try target.seeds().enumerated() {
                try Data(seed).write(to: folder.appendingPathComponent(String(format: "seed-%03d", number)))
            }
        }
    }
}

/// The target libFuzzer's callback runs.
enum Current {
    // Set once in main before the driver starts; libFuzzer calls back on the main thread only.
    nonisolated(unsafe) static var run: (([UInt8]) -> Void)?
}

/// libFuzzer's callback, under the name its library expects too.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Current.run?(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
