"""The stores' one database layer: SQLite files by default, one PostgreSQL database with
--database-url; versioned migrations per store (see ARCHITECTURE.md, "Storage")."""
