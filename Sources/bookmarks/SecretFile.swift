import Foundation

/// Files that hold a secret (a refresh token, a session), written so that no one else can read
/// or plant them and a crash leaves the old or the new content, never half of one.
enum SecretFile {
    /// Writes `contents` to `path`: to a new file of a random name beside it (created
    /// exclusively, never through a symbolic link, mode 0600 from the start), fsynced, renamed
    /// over `path`, and the directory fsynced. A `path` that is a symbolic link has its target
    /// replaced.
    ///
    /// - Throws: ``SecretFileError`` naming the step and the system's reason; nothing is left
    ///   behind, and `path` keeps what it had.
    static func write(_ contents: String, to path: String) throws {
        try refusePlantedLink(path)
        let target = realpath(path, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? path
        let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
        let folder = directory.isEmpty ? "/" : directory
        let temporary = "\(folder)/.secret-\(UInt64.random(in: .min ... .max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SecretFileError(path: path, step: "create a file in \(folder)") }
        let bytes = Array(contents.utf8)
        var failure: SecretFileError?
        if fchmod(descriptor, 0o600) != 0 {
            failure = SecretFileError(path: path, step: "restrict the new file to its owner")
        } else if bytes.withUnsafeBytes({ Foundation.write(descriptor, $0.baseAddress, $0.count) }) != bytes.count {
            failure = SecretFileError(path: path, step: "write")
        } else if fsync(descriptor) != 0 {
            failure = SecretFileError(path: path, step: "fsync")
        }
        if close(descriptor) != 0 && failure == nil { failure = SecretFileError(path: path, step: "close") }
        if failure == nil && rename(temporary, target) != 0 { failure = SecretFileError(path: path, step: "rename into place") }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let directoryDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// A symbolic link someone else owns, or one in a directory anyone may write (a sticky
    /// `/tmp`), may have been planted to make this process overwrite a file of its user's:
    /// refuse to write through it.
    private static func refusePlantedLink(_ path: String) throws {
        var link = stat()
        guard lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK else { return }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var parent = stat()
        let sharedFolder = stat(folder, &parent) == 0 && (parent.st_mode & S_IWOTH) != 0
        if link.st_uid != geteuid() || sharedFolder {
            throw SecretFileError(path: path, step: "write through a symbolic link", reason: "it is someone else's or in a directory anyone may write; remove it or choose another file")
        }
    }

    /// Creates `directory` and its parents, readable by the user only where it is new.
    static func makeDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SecretFileError(path: directory.path, step: "create the directory", reason: error.localizedDescription)
        }
    }
}

/// A secret file could not be written: which file, at which step, and why.
struct SecretFileError: Error, CustomStringConvertible {
    var path: String
    var step: String
    var reason: String

    init(path: String, step: String, reason: String = String(cString: strerror(errno))) {
        self.path = path
        self.step = step
        self.reason = reason
    }

    var description: String { "cannot save \(path): \(step) failed (\(reason))" }
}
