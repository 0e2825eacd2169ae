import Foundation
import PixivAPI

/// Realistic Pixiv app-API bodies, written by hand after the shapes the API documents.
enum Fixtures {
    /// A page of three bookmarks: a single-page illust with a null translated name and unknown
    /// extra fields, a multi-page manga in a series, and an ugoira; `next_url` set.
    static let bookmarksPage = #"""
    {
      "illusts": [
        {
          "id": 118012345,
          "title": "夏の空",
          "type": "illust",
          "image_urls": {
            "square_medium": "https://i.pximg.net/c/360x360_70/img-master/img/2024/05/01/12/34/56/118012345_p0_square1200.jpg",
            "medium": "https://i.pximg.net/c/540x540_70/img-master/img/2024/05/01/12/34/56/118012345_p0_master1200.jpg",
            "large": "https://i.pximg.net/c/600x1200_90/img-master/img/2024/05/01/12/34/56/118012345_p0_master1200.jpg"
          },
          "caption": "夏です。<br />Summer.",
          "restrict": 0,
          "user": {
            "id": 4242,
            "name": "みどり",
            "account": "midori_art",
            "profile_image_urls": {"medium": "https://i.pximg.net/user-profile/img/2020/01/01/00/00/00/1_abc_170.jpg"},
            "is_followed": true,
            "is_accept_request": false
          },
          "tags": [
            {"name": "オリジナル", "translated_name": "original"},
            {"name": "夏", "translated_name": null},
            {"name": "風景"}
          ],
          "tools": ["CLIP STUDIO PAINT"],
          "create_date": "2024-05-01T12:34:56+09:00",
          "page_count": 1,
          "width": 2894,
          "height": 4093,
          "sanity_level": 2,
          "x_restrict": 0,
          "series": null,
          "meta_single_page": {"original_image_url": "https://i.pximg.net/img-original/img/2024/05/01/12/34/56/118012345_p0.png"},
          "meta_pages": [],
          "total_view": 51234,
          "total_bookmarks": 9876,
          "is_bookmarked": true,
          "visible": true,
          "is_muted": false,
          "illust_ai_type": 1,
          "illust_book_style": 0,
          "total_comments": 12,
          "restriction_attributes": [],
          "seasonal_effect_animation_urls": null,
          "event_banners": null,
          "request": null
        },
        {
          "id": 117000003,
          "title": "放課後の話 第3話",
          "type": "manga",
          "image_urls": {
            "square_medium": "https://i.pximg.net/c/360x360_70/img-master/img/2024/04/02/18/00/00/117000003_p0_square1200.jpg",
            "medium": "https://i.pximg.net/c/540x540_70/img-master/img/2024/04/02/18/00/00/117000003_p0_master1200.jpg",
            "large": "https://i.pximg.net/c/600x1200_90/img-master/img/2024/04/02/18/00/00/117000003_p0_master1200.jpg"
          },
          "caption": "",
          "restrict": 0,
          "user": {"id": 777, "name": "Kuro \"黒\" 🐈", "account": "kuro", "profile_image_urls": {"medium": "https://s.pximg.net/common/images/no_profile.png"}, "is_followed": false},
          "tags": [{"name": "漫画", "translated_name": "manga"}, {"name": "創作", "translated_name": "creation"}],
          "tools": [],
          "create_date": "2024-04-02T18:00:00+09:00",
          "page_count": 3,
          "width": 1000,
          "height": 1414,
          "sanity_level": 2,
          "x_restrict": 0,
          "series": {"id": 12345, "title": "放課後の話"},
          "meta_single_page": {},
          "meta_pages": [
            {"image_urls": {"square_medium": "https://i.pximg.net/c/360x360_70/img-master/img/2024/04/02/18/00/00/117000003_p0_square1200.jpg", "medium": "https://i.pximg.net/c/540x540_70/img-master/img/2024/04/02/18/00/00/117000003_p0_master1200.jpg", "large": "https://i.pximg.net/c/600x1200_90/img-master/img/2024/04/02/18/00/00/117000003_p0_master1200.jpg", "original": "https://i.pximg.net/img-original/img/2024/04/02/18/00/00/117000003_p0.jpg"}},
            {"image_urls": {"square_medium": "https://i.pximg.net/c/360x360_70/img-master/img/2024/04/02/18/00/00/117000003_p1_square1200.jpg", "medium": "https://i.pximg.net/c/540x540_70/img-master/img/2024/04/02/18/00/00/117000003_p1_master1200.jpg", "large": "https://i.pximg.net/c/600x1200_90/img-master/img/2024/04/02/18/00/00/117000003_p1_master1200.jpg", "original": "https://i.pximg.net/img-original/img/2024/04/02/18/00/00/117000003_p1.jpg"}},
            {"image_urls": {"square_medium": "https://i.pximg.net/c/360x360_70/img-master/img/2024/04/02/18/00/00/117000003_p2_square1200.jpg", "medium": "https://i.pximg.net/c/540x540_70/img-master/img/2024/04/02/18/00/00/117000003_p2_master1200.jpg", "large": "https://i.pximg.net/c/600x1200_90/img-master/img/2024/04/02/18/00/00/117000003_p2_master1200.jpg", "original": "https://i.pximg.net/img-original/img/2024/04/02/18/00/00/117000003_p2.jpg"}}
          ],
          "total_view": 3000,
          "total_bookmarks": 420,
          "is_bookmarked": true,
          "visible": true,
          "is_muted": false,
          "illust_ai_type": 1,
          "illust_book_style": 1,
          "total_comments": 3
        },
        {
          "id": 116500000,
          "title": "くるくる",
          "type": "ugoira",
          "image_urls": {
            "square_medium": "https://i.pximg.net/c/360x360_70/img-master/img/2024/03/03/03/03/03/116500000_square1200.jpg",
            "medium": "https://i.pximg.net/c/540x540_70/img-master/img/2024/03/03/03/03/03/116500000_master1200.jpg",
            "large": "https://i.pximg.net/c/600x1200_90/img-master/img/2024/03/03/03/03/03/116500000_master1200.jpg"
          },
          "caption": "",
          "restrict": 0,
          "user": {"id": 99, "name": "anim", "account": "anim", "profile_image_urls": {"medium": ""}, "is_followed": false},
          "tags": [{"name": "うごイラ", "translated_name": "ugoira"}, {"name": "R-18", "translated_name": null}],
          "tools": [],
          "create_date": "2024-03-03T03:03:03+09:00",
          "page_count": 1,
          "width": 600,
          "height": 600,
          "sanity_level": 6,
          "x_restrict": 1,
          "series": null,
          "meta_single_page": {"original_image_url": "https://i.pximg.net/img-zip-ugoira/img/2024/03/03/03/03/03/116500000_ugoira600x600.zip"},
          "meta_pages": [],
          "total_view": 100,
          "total_bookmarks": 10,
          "is_bookmarked": true,
          "visible": true,
          "is_muted": false,
          "illust_ai_type": 2
        }
      ],
      "next_url": "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=4242&restrict=public&max_bookmark_id=24681357"
    }
    """#

    /// A work Pixiv does not let the viewer see: `limit_unviewable`.
    static let unviewableIllust = #"""
          {
            "id": 90000004,
            "title": "",
            "type": "illust",
            "image_urls": {
              "square_medium": "https://s.pximg.net/common/images/limit_unviewable_360.png",
              "medium": "https://s.pximg.net/common/images/limit_unviewable_360.png",
              "large": "https://s.pximg.net/common/images/limit_unviewable_360.png"
            },
            "caption": "",
            "restrict": 0,
            "user": {"id": 60606, "name": "", "account": "", "profile_image_urls": {"medium": "https://s.pximg.net/common/images/no_profile.png"}, "is_followed": false},
            "tags": [],
            "tools": [],
            "create_date": "2022-02-22T22:22:22+09:00",
            "page_count": 1,
            "width": 100,
            "height": 100,
            "sanity_level": 0,
            "x_restrict": 0,
            "series": null,
            "meta_single_page": {"original_image_url": "https://s.pximg.net/common/images/limit_unviewable_360.png"},
            "meta_pages": [],
            "total_view": 0,
            "total_bookmarks": 0,
            "is_bookmarked": true,
            "visible": false,
            "is_muted": false,
            "illust_ai_type": 0,
            "illust_book_style": 0,
            "total_comments": 0,
            "restriction_attributes": []
          }
        """#

    /// The unviewable placeholder's shape with `limit_<kind>` and another ID.
    static func ageSettingPlaceholder(id: Int, kind: String) -> String {
        unviewableIllust.replacingOccurrences(of: "limit_unviewable_360", with: "limit_\(kind)_360")
            .replacingOccurrences(of: "90000004", with: String(id))
    }

    /// Works the viewer can no longer see, one of each kind, as they arrive in a bookmark list:
    /// `visible: false`, empty title and tags, 100 × 100, sanity level 0, zero counts, and every
    /// image URL (`image_urls` and `meta_single_page.original_image_url`) the kind's placeholder.
    static let invisibleIllusts: [(reason: PixivIllust.InvisibleReason, json: String)] = [
        // A deleted work: `limit_unknown`, and `user.id` 0 with an empty name.
        (.deleted, #"""
          {
            "id": 80000002,
            "title": "",
            "type": "illust",
            "image_urls": {
              "square_medium": "https://s.pximg.net/common/images/limit_unknown_360.png",
              "medium": "https://s.pximg.net/common/images/limit_unknown_360.png",
              "large": "https://s.pximg.net/common/images/limit_unknown_360.png"
            },
            "caption": "",
            "restrict": 0,
            "user": {"id": 0, "name": "", "account": "", "profile_image_urls": {}, "is_followed": false},
            "tags": [],
            "tools": [],
            "create_date": "1970-01-01T09:00:00+09:00",
            "page_count": 1,
            "width": 100,
            "height": 100,
            "sanity_level": 0,
            "x_restrict": 0,
            "series": null,
            "meta_single_page": {"original_image_url": "https://s.pximg.net/common/images/limit_unknown_360.png"},
            "meta_pages": [],
            "total_view": 0,
            "total_bookmarks": 0,
            "is_bookmarked": true,
            "visible": false,
            "is_muted": false,
            "illust_ai_type": 0,
            "illust_book_style": 0,
            "total_comments": 0,
            "restriction_attributes": []
          }
        """#),
        // A work for the artist's My pixiv friends only: `limit_mypixiv`, `restrict` 1.
        (.myPixivOnly, #"""
          {
            "id": 90000001,
            "title": "",
            "type": "illust",
            "image_urls": {
              "square_medium": "https://s.pximg.net/common/images/limit_mypixiv_360.png",
              "medium": "https://s.pximg.net/common/images/limit_mypixiv_360.png",
              "large": "https://s.pximg.net/common/images/limit_mypixiv_360.png"
            },
            "caption": "",
            "restrict": 1,
            "user": {"id": 31337, "name": "", "account": "", "profile_image_urls": {"medium": "https://s.pximg.net/common/images/no_profile.png"}, "is_followed": false},
            "tags": [],
            "tools": [],
            "create_date": "2019-01-01T00:00:00+09:00",
            "page_count": 1,
            "width": 100,
            "height": 100,
            "sanity_level": 0,
            "x_restrict": 0,
            "series": null,
            "meta_single_page": {"original_image_url": "https://s.pximg.net/common/images/limit_mypixiv_360.png"},
            "meta_pages": [],
            "total_view": 0,
            "total_bookmarks": 0,
            "is_bookmarked": true,
            "visible": false,
            "is_muted": false,
            "illust_ai_type": 0,
            "illust_book_style": 0,
            "total_comments": 0,
            "restriction_attributes": []
          }
        """#),
        // A work the viewer's sanity or age settings hold back: `limit_sanity_level`.
        (.sanityLimited, #"""
          {
            "id": 90000003,
            "title": "",
            "type": "illust",
            "image_urls": {
              "square_medium": "https://s.pximg.net/common/images/limit_sanity_level_360.png",
              "medium": "https://s.pximg.net/common/images/limit_sanity_level_360.png",
              "large": "https://s.pximg.net/common/images/limit_sanity_level_360.png"
            },
            "caption": "",
            "restrict": 0,
            "user": {"id": 52525, "name": "", "account": "", "profile_image_urls": {"medium": "https://s.pximg.net/common/images/no_profile.png"}, "is_followed": false},
            "tags": [],
            "tools": [],
            "create_date": "2021-06-01T21:00:00+09:00",
            "page_count": 1,
            "width": 100,
            "height": 100,
            "sanity_level": 0,
            "x_restrict": 0,
            "series": null,
            "meta_single_page": {"original_image_url": "https://s.pximg.net/common/images/limit_sanity_level_360.png"},
            "meta_pages": [],
            "total_view": 0,
            "total_bookmarks": 0,
            "is_bookmarked": true,
            "visible": false,
            "is_muted": false,
            "illust_ai_type": 0,
            "illust_book_style": 0,
            "total_comments": 0,
            "restriction_attributes": []
          }
        """#),
        // A work Pixiv does not let the viewer see: `limit_unviewable`.
        (.unviewable, unviewableIllust),
        // A work invisible for a reason Pixiv does not give: `limit_unknown` with its artist's ID.
        (.unknown, #"""
          {
            "id": 90000005,
            "title": "",
            "type": "illust",
            "image_urls": {
              "square_medium": "https://s.pximg.net/common/images/limit_unknown_360.png",
              "medium": "https://s.pximg.net/common/images/limit_unknown_360.png",
              "large": "https://s.pximg.net/common/images/limit_unknown_360.png"
            },
            "caption": "",
            "restrict": 0,
            "user": {"id": 31338, "name": "", "account": "", "profile_image_urls": {"medium": "https://s.pximg.net/common/images/no_profile.png"}, "is_followed": false},
            "tags": [],
            "tools": [],
            "create_date": "2020-10-10T10:10:10+09:00",
            "page_count": 1,
            "width": 100,
            "height": 100,
            "sanity_level": 0,
            "x_restrict": 0,
            "series": null,
            "meta_single_page": {"original_image_url": "https://s.pximg.net/common/images/limit_unknown_360.png"},
            "meta_pages": [],
            "total_view": 0,
            "total_bookmarks": 0,
            "is_bookmarked": true,
            "visible": false,
            "is_muted": false,
            "illust_ai_type": 0,
            "illust_book_style": 0,
            "total_comments": 0,
            "restriction_attributes": []
          }
        """#),
        // A work hidden by the viewer's own age setting, R-18 then R-18G: the unviewable
        // shape with `limit_r18` and `limit_r18g`. Still bookmarked.
        (.hiddenByR18Setting, ageSettingPlaceholder(id: 90000101, kind: "r18")),
        (.hiddenByR18GSetting, ageSettingPlaceholder(id: 90000102, kind: "r18g")),
    ]

    /// The last page: one invisible work of each kind, in ``invisibleIllusts``' order; no `next_url`.
    static let lastPageWithInvisibleWorks = #"{"illusts": ["# + invisibleIllusts.map(\.json).joined(separator: ",") + #"], "next_url": null}"#

    static let bookmarkDetail = #"""
    {"bookmark_detail": {"is_bookmarked": true, "tags": [{"name": "お気に入り", "is_registered": true}, {"name": "風景", "is_registered": false}], "restrict": "private"}}
    """#

    static let bookmarkTags = #"""
    {"bookmark_tags": [{"name": "お気に入り", "count": 120}, {"name": "資料", "count": 7}], "next_url": "https://app-api.pixiv.net/v1/user/bookmark-tags/illust?user_id=4242&restrict=public&offset=30"}
    """#

    static let userDetail = #"""
    {
      "user": {"id": 4242, "name": "みどり", "account": "midori_art", "profile_image_urls": {"medium": "https://s.pximg.net/common/images/no_profile.png"}, "comment": "hi", "is_followed": false, "is_access_blocking_user": false},
      "profile": {"webpage": null, "gender": "", "birth": "", "birth_day": "", "birth_year": 0, "region": "", "address_id": 0, "country_code": "", "job": "", "job_id": 0, "total_follow_users": 12, "total_mypixiv_users": 0, "total_illusts": 34, "total_manga": 5, "total_novels": 0, "total_illust_bookmarks_public": 1234, "total_illust_series": 1, "total_novel_series": 0, "background_image_url": null, "twitter_account": "", "twitter_url": null, "pawoo_url": null, "is_premium": false, "is_using_custom_profile_image": false},
      "profile_publicity": {"gender": "public", "region": "public", "birth_day": "public", "birth_year": "public", "job": "public", "pawoo": true},
      "workspace": {"pc": "", "monitor": "", "tool": "", "scanner": "", "tablet": "", "mouse": "", "printer": "", "desktop": "", "music": "", "desk": "", "chair": "", "comment": "", "workspace_image_url": null}
    }
    """#

    // MARK: Error bodies

    static let rateLimitError = #"{"error": {"user_message": "", "message": "Rate Limit", "reason": "", "user_message_details": {}}}"#
    static let oauthError = #"{"error": {"user_message": "", "message": "Error occurred at the OAuth process. Please check your Access Token to fix this. Error Message: invalid_grant", "reason": "", "user_message_details": {}}}"#
    static let notFoundError = #"{"error": {"user_message": "該当作品は削除されたか、存在しない作品IDです。", "message": "", "reason": "", "user_message_details": {}}}"#
    static let badRequestError = #"{"error": {"user_message": "", "message": "{\"restrict\":[\"restrict is invalid\"]}", "reason": "bad_request", "user_message_details": {"restrict": "invalid", "count": 2, "flag": true, "nested": {"a": 1}}}}"#
    static let invalidGrantError = #"{"has_error": true, "errors": {"system": {"message": "invalid_grant", "code": 1508}}}"#
    static let htmlServerError = "<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center></body></html>"
}
