// The reader's numbers: integers exactly, doubles as the writer wrote them, and any number's
// text checked against JSON's grammar.

extension JSONReader {
    /// Reads an integer; a number with a fraction or exponent is rejected.
    package mutating func readInt() throws -> Int {
        skipWhitespace()
        let start = position
        var negative = false
        if position < bytes.count && bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        // Up to 18 digits cannot overflow: read without checking each step.
        var run = position
        var quick = 0
        while run < bytes.count, run - position < 19, case let digit = bytes[run] &- UInt8(ascii: "0"), digit < 10 {
            quick = quick &* 10 &+ Int(digit)
            run += 1
        }
        let count = run - position
        if count > 0, count < 19, count == 1 || bytes[position] != UInt8(ascii: "0"),
           run == bytes.count || !(bytes[run] == UInt8(ascii: ".") || bytes[run] == UInt8(ascii: "e") || bytes[run] == UInt8(ascii: "E")) {
            position = run
            return negative ? -quick : quick
        }
        // A negative number is accumulated below zero, so that `Int.min`, whose magnitude has
        // no positive `Int`, reads as the writer wrote it.
        var value = 0
        var digits = 0
        while position < bytes.count, case let byte = bytes[position], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let digit = Int(byte - UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1 && !overflow2 else { throw error("the integer is too large", at: start) }
            value = next
            digits += 1
            position += 1
        }
        guard digits > 0 else { throw error("expected an integer\(found)", at: start) }
        guard digits == 1 || bytes[position - digits] != UInt8(ascii: "0") else {
            throw error("expected a number: JSON numbers have no leading zeros", at: start)
        }
        if position < bytes.count, case let next = bytes[position], next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            throw error("expected an integer, found a fraction", at: start)
        }
        return value
    }

    package mutating func readDouble() throws -> Double {
        skipWhitespace()
        let start = position
        // Most numbers the journal writes are whole: read those without making a string.
        var index = position
        if index < bytes.count && bytes[index] == UInt8(ascii: "-") { index += 1 }
        var whole: Int64 = 0
        let digitsStart = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), index - digitsStart < 15 {
            whole = whole * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - digitsStart
        let next = index < bytes.count ? bytes[index] : 0
        if digits > 0, digits < 15, !(digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")),
           next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E"),
           !(next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9")) {
            position = index
            return digitsStart > start ? -Double(whole) : Double(whole)
        }
        let text = try readNumberText()
        // A number too large for a Double (1e999) would read as infinity, which the writer can
        // never write back: refused like any other value that is not one.
        guard let value = Double(text), value.isFinite else { throw error("'\(text)' is not a finite number", at: start) }
        return value
    }

    /// Reads a number's text, checking it against JSON's number grammar.
    package mutating func readNumberText() throws -> String {
        skipWhitespace()
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - from
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: "-") { position += 1 }
        let intDigits = digits()
        guard intDigits > 0, !(intDigits > 1 && bytes[position - intDigits] == UInt8(ascii: "0")) else {
            throw error("expected a number", at: start)
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("a number's fraction needs digits", at: start) }
        }
        if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            position += 1
            if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) { position += 1 }
            guard digits() > 0 else { throw error("a number's exponent needs digits", at: start) }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }
}
