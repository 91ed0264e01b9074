"""Planning a /translate request before any engine work: languages, pieces, glossary terms,
the cache and the memory; and what planning needs from other domains, declared as protocols
(ports) that the composition root fills."""
