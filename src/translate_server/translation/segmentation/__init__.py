"""Splitting a text into the pieces the engine translates: sentences and lines (segments), and
the text nodes of HTML and XML (markup)."""
