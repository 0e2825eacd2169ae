/// The kind of an artwork: Pixiv's `type` field.
///
/// A struct rather than an enum so that a kind Pixiv adds later decodes instead of failing.
public struct IllustType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Pixiv's spelling, for example `"illust"`.
    public var rawValue: String
    /// The kind Pixiv spells `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A single or multi-page illustration.
    public static let illust = IllustType(rawValue: "illust")
    /// A manga.
    public static let manga = IllustType(rawValue: "manga")
    /// An animated work.
    public static let ugoira = IllustType(rawValue: "ugoira")

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
