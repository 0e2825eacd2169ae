// Tests for BookmarkSync arrive with the issue that builds the module.
