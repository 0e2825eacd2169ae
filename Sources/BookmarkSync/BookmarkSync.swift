enum BookmarkSync {}
