"""Google Cloud Translation's REST API: the basic edition (v2) and the advanced (v3) text
methods, over the translation service."""
