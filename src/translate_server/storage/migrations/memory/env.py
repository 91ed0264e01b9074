from translate_server.storage.migrate import run_migrations

run_migrations()
