"""DeepLX's API under /deeplx/."""
