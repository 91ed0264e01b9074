"""Translation memories: named sets of human translations, kept per API key in SQLite, read
from TMX, PO/MO, XLIFF and CSV files, and consulted by /translate piece by piece."""
