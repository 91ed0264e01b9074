"""Stored glossaries: kept per owner in the accounts' database, used by `glossary_id` on every
translating surface, edited entry by entry on /glossaries, imported and exported as TBX."""
