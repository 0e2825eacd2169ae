// The part of a journal's scan that goes line by line, in order: numbering the lines,
// checking the sequence, telling a torn tail (and room) from damage.

extension JournalScanner {
    /// The part of the scan that must go line by line, in order.
    ///
    /// A journal written durably may end with room (spaces, or zeros where a file system lost
    /// them) that appends write over; a crash during such a write can leave any of its pages
    /// and not others, so the lines of that one write may read as several unreadable lines, or
    /// a readable one after an unreadable one, just before the room. A write over room is at
    /// most ``JournalWriter/roomChunk`` bytes and leaves at least ``JournalWriter/minimumRoom``
    /// after it: lines from an unreadable one on are held back until it is known whether they
    /// are that (a torn tail, cut off like a torn last line) or damage, as they are in a
    /// journal without room.
    struct Sequencer {
        var lineNumber = 0
        var result = Result(tornTail: nil, goodLength: 0, lastGoodLineStart: 0, lastSequence: 0, header: nil, length: 0)
        /// The lines from an unreadable one on, while they may still be a torn tail.
        private var held = ArraySlice<Numbered>()
        /// Where the last line read ends.
        private var lastLineEnd: Int?

        /// A line with its number and the rows of its block.
        private struct Numbered {
            var line: DecodedLine
            var rows: PreparedRows
            var number: Int

            /// Whether the line cannot be what it stands: unreadable, or a header after the first line.
            var fails: Bool {
                switch line.outcome {
                case .unreadable, .header: number > 1
                case .batch, .fatal: false
                }
            }
        }

        mutating func consume(_ block: DecodedBlock, isFinal: Bool, tail: [UInt8], onEvent: (Event) throws -> Void) throws {
            for line in block.lines {
                lineNumber += 1
                if case .fatal(let error) = line.outcome { throw ScanFailure(line: lineNumber, underlying: error) }
                lastLineEnd = line.end
                try feed(Numbered(line: line, rows: block.rows, number: lineNumber), onEvent: onEvent)
            }
            if isFinal { try finish(tail: tail, onEvent: onEvent) }
        }

        /// Takes the next line: held back after an unreadable one, for as long as the lines held
        /// could be one write over room; otherwise replayed.
        private mutating func feed(_ entry: Numbered, onEvent: (Event) throws -> Void) throws {
            if held.isEmpty {
                if entry.fails { held.append(entry) } else { try replay(entry, isLast: false, onEvent: onEvent) }
                return
            }
            held.append(entry)
            // More than one write over room could leave: the first line held is damage, and the
            // lines held may start again at the next unreadable one. (One line alone may be a
            // longer write's torn last line: it waits for the end.) Each line leaves once.
            while held.count > 1, let first = held.first, entry.line.end - first.line.start > JournalWriter.roomChunk {
                try replay(held.removeFirst(), isLast: false, onEvent: onEvent)
                while let next = held.first, !next.fails { try replay(held.removeFirst(), isLast: false, onEvent: onEvent) }
            }
        }

        /// At the end of the file: the bytes after its last newline (`tail`) are room, a line
        /// cut short, or both; the lines held are a torn tail or what they are.
        private mutating func finish(tail: [UInt8], onEvent: (Event) throws -> Void) throws {
            // Room is the trailing spaces and zeros: all of the tail, or at least the least room
            // a write leaves (fewer after other bytes are a line cut short in its own spaces).
            let trailing = tail.reversed().prefix(while: Self.isRoom).count
            let endsWithRoom = trailing > 0 && (trailing == tail.count || trailing >= JournalWriter.minimumRoom)
            result.room = endsWithRoom ? trailing : 0
            let content = tail.count - result.room
            if let first = held.first {
                let region = (held.last!.line.end + content) - first.line.start
                if endsWithRoom && region <= JournalWriter.roomChunk {
                    result.tornTail = JournalDamage(
                        line: first.number, offset: first.line.start,
                        reason: "a write interrupted by a crash, before the room written ahead for it"
                    )
                    held = []
                    return
                }
                let lines = Array(held)
                held = []
                for (index, line) in lines.enumerated() {
                    try replay(line, isLast: index == lines.count - 1 && content == 0, onEvent: onEvent)
                }
            }
            if content > 0 {
                lineNumber += 1
                result.tornTail = JournalDamage(line: lineNumber, offset: lastLineEnd ?? result.goodLength, reason: "the last line is cut short (no newline): a write interrupted by a crash")
            }
        }

        /// Whether `byte` is room: a space, or a zero where a file system lost the spaces.
        private static func isRoom(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == 0
        }

        /// Acts on a line: an event for a header or a batch, damage (or, the last line, a torn
        /// tail) for a line that fails.
        private mutating func replay(_ entry: Numbered, isLast: Bool, onEvent: (Event) throws -> Void) throws {
            let line = entry.line
            let number = entry.number
            let damage = { (reason: String) in JournalDamage(line: number, offset: line.start, reason: reason) }
            switch line.outcome {
            case .header(let header) where number == 1:
                result.header = header
                try onEvent(.header(header))
            case .header:
                try fail(damage("a second header in the middle of the journal"), isLast: isLast, onEvent: onEvent)
                return
            case .batch where number == 1:
                try fail(damage("the first line is not a journal header"), isLast: false, onEvent: onEvent)
                return
            case .batch(let sequence, let changes):
                if sequence != result.lastSequence + 1 {
                    try onEvent(.damage(damage("sequence gap: expected batch \(result.lastSequence + 1), found \(sequence)")))
                }
                result.lastSequence = sequence
                try onEvent(.batch(sequence: sequence, changes: PreparedRows.Batch(rows: entry.rows, changes: changes), line: number, offset: line.start))
            case .unreadable(let reason):
                try fail(damage(reason), isLast: isLast && number > 1, onEvent: onEvent)
                return
            case .fatal(let error):
                throw ScanFailure(line: number, underlying: error)
            }
            result.goodLength = line.end
            result.lastGoodLineStart = line.start
        }

        private mutating func fail(_ damage: JournalDamage, isLast: Bool, onEvent: (Event) throws -> Void) throws {
            if isLast {
                result.tornTail = damage
                return
            }
            try onEvent(.damage(damage))
            // The damaged line held one batch: the next one should follow it.
            if damage.line > 1 { result.lastSequence += 1 }
        }

        func result(length: Int) -> Result {
            var result = result
            result.length = length
            return result
        }
    }
}
