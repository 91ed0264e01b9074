"""Text primitives every domain shares: language tags and their names, language detection,
the protected spans a model must not touch (masking) and the placeholders among them. Imports
no domain: translation, memory, documents, adapters and quality all stand on it."""
