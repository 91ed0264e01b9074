"""Software localization files (JSON, ARB, Android, Apple, properties, resx, YAML, Qt, CSV):
their values translated in place, everything else kept byte for byte (`slots`)."""
