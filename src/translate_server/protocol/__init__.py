"""Wire types: the JSON shapes of both surfaces, as msgspec Structs."""
