/// Whether an artwork was made with generative AI, as its artist told Pixiv
/// (``BookmarkedIllustSnapshot/aiType``, Pixiv's `illust_ai_type`).
///
/// Pixiv asks artists to say so when they post; works posted before it asked, and works whose
/// artists did not say, are ``unknown``.
public enum AIKind: Sendable, Hashable, CaseIterable {
    /// Pixiv does not say (`illust_ai_type` 0, or a value this library does not know).
    case unknown
    /// Not AI-generated (`illust_ai_type` 1).
    case notAIGenerated
    /// AI-generated (`illust_ai_type` 2).
    case aiGenerated

    /// The kind Pixiv's `illust_ai_type` says.
    public init(illustAIType: Int) {
        switch illustAIType {
        case 1: self = .notAIGenerated
        case 2: self = .aiGenerated
        default: self = .unknown
        }
    }
}

/// Who an artwork is for, from Pixiv's `x_restrict` (``BookmarkedIllustSnapshot/xRestrict``).
public enum AgeRating: Sendable, Hashable, CaseIterable {
    /// For all ages (`x_restrict` 0).
    case allAges
    /// R-18 (`x_restrict` 1).
    case r18
    /// R-18G (`x_restrict` 2).
    case r18g

    /// The rating Pixiv's `x_restrict` says, or `nil` for a value this library does not know.
    public init?(xRestrict: Int) {
        switch xRestrict {
        case 0: self = .allAges
        case 1: self = .r18
        case 2: self = .r18g
        default: return nil
        }
    }
}

extension BookmarkedIllustSnapshot {
    /// Whether the work is AI-generated, by its ``aiType``.
    public var aiKind: AIKind { AIKind(illustAIType: aiType) }

    /// The work's age rating, by its ``xRestrict``; `nil` for a value this library does not know.
    public var ageRating: AgeRating? { AgeRating(xRestrict: xRestrict) }
}
