/// A failure to read a journal line as JSON: what was wrong and at which byte of the line.
struct JSONReadError: Error, Sendable {
    var offset: Int
    var message: String
}
