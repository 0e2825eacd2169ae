/// A usage error: the exit code is 2 and the message says what was wrong with the arguments.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One option a subcommand accepts.
struct OptionSpec {
    enum Kind {
        /// `--name` alone.
        case flag
        /// `--name VALUE` or `--name=VALUE`.
        case value(placeholder: String)
        /// Like `value`, and may be given more than once.
        case repeatable(placeholder: String)
    }

    var name: String
    var kind: Kind
    var help: String
}

/// `rows` as two columns, each indented by two spaces: every left cell padded to the widest one
/// and two spaces (to `minimumWidth` when that is wider), so that no left cell is cut short or
/// runs into its right one.
func twoColumns(_ rows: [(left: String, right: String)], minimumWidth: Int = 0) -> [String] {
    let width = max(minimumWidth, (rows.map(\.left.count).max() ?? 0) + 2)
    return rows.map { "  " + $0.left + String(repeating: " ", count: width - $0.left.count) + $0.right }
}

/// A subcommand's name, summary and options: what `--help` prints and the parser checks.
struct CommandSpec {
    var name: String
    var summary: String
    var options: [OptionSpec]
    var details: String = ""

    var usage: String {
        var lines = ["usage: bookmarks \(name) [options]", "", summary, "", "options:"]
        let rows = (options + [OptionSpec(name: "help", kind: .flag, help: "Show this help.")]).map { option in
            switch option.kind {
            case .flag: (left: "--\(option.name)", right: option.help)
            case .value(let placeholder): (left: "--\(option.name) \(placeholder)", right: option.help)
            case .repeatable(let placeholder): (left: "--\(option.name) \(placeholder) (repeatable)", right: option.help)
            }
        }
        lines += twoColumns(rows, minimumWidth: 35)
        if !details.isEmpty { lines += ["", details] }
        return lines.joined(separator: "\n")
    }
}

/// Parsed arguments: the values of each option, checked against a ``CommandSpec``.
struct ParsedArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var helpRequested = false

    /// Parses `arguments` (after the subcommand's name) against `spec`.
    init(_ arguments: [String], spec: CommandSpec) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw UsageError("unexpected argument '\(argument)' for 'bookmarks \(spec.name)'; options start with --")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if name == "help" {
                helpRequested = true
                continue
            }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '--\(name)' for 'bookmarks \(spec.name)' (see 'bookmarks \(spec.name) --help')")
            }
            switch option.kind {
            case .flag:
                if inlineValue != nil { throw UsageError("'--\(name)' takes no value") }
                values[name] = ["true"]
            case .value, .repeatable:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw UsageError("'--\(name)' needs a value")
                    }
                    value = arguments[index]
                    index += 1
                }
                if case .value = option.kind, values[name] != nil {
                    throw UsageError("'--\(name)' was given more than once")
                }
                values[name, default: []].append(value)
            }
        }
    }

    func flag(_ name: String) -> Bool { values[name] != nil }

    func value(_ name: String) -> String? { values[name]?.last }

    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The option's value as an integer in `range`, or `defaultValue` when absent.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("'--\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// The option's value as one of `choices`.
    func choice(_ name: String, default defaultValue: String, in choices: [String]) throws -> String {
        guard let text = value(name) else { return defaultValue }
        guard choices.contains(text) else {
            throw UsageError("'--\(name)' must be one of \(choices.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }
}
