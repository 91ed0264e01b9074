"""DeepL API v2."""
