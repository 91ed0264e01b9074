"""The translator page: a static page served by the app itself, for people, not programs."""
