import Foundation

/// What the tool knows about where its output goes.
enum Terminal {
    /// Whether standard output is a terminal.
    static let isInteractive = isatty(STDOUT_FILENO) == 1

    /// Colour only on a terminal, and never when `NO_COLOR` is set (https://no-color.org).
    static let usesColor = isInteractive && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    static func bold(_ text: String) -> String { usesColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    static func dim(_ text: String) -> String { usesColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    static func accent(_ text: String) -> String { usesColor ? "\u{1B}[36m\(text)\u{1B}[0m" : text }
    static func warning(_ text: String) -> String { usesColor ? "\u{1B}[33m\(text)\u{1B}[0m" : text }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("bookmarks: \(message)\n".utf8))
    }

    /// How many columns `text` takes in a terminal: East Asian wide characters and emoji take two.
    static func width(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { total, scalar in
            switch scalar.value {
            case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: total
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
                 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1FAFF, 0x20000...0x3FFFD: total + 2
            default: total + 1
            }
        }
    }

    /// `text` cut or padded with spaces to exactly `columns` columns.
    static func fit(_ text: String, columns: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let width = self.width(of: String(character))
            if used + width > columns {
                if used < columns { result += "…"; used += 1 }
                break
            }
            result.append(character)
            used += width
        }
        return result + String(repeating: " ", count: max(0, columns - used))
    }
}
