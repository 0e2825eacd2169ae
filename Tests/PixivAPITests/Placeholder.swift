// Tests for PixivAPI arrive with the issue that builds the module.
