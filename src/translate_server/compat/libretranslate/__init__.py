"""LibreTranslate's API."""
