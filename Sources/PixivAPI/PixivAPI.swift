enum PixivAPI {}
