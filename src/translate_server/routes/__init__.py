"""HTTP surfaces: thin handlers that take a typed body, call a service, return a Struct."""
