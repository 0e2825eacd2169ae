/// A failure to read JSON: what was wrong and at which byte of the text (for the journal, of
/// the line).
package struct JSONReadError: Error, Sendable {
    package var offset: Int
    package var message: String

    package init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}
