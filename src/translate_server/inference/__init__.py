"""Everything between a prepared prompt and the engine: the engine itself, admission, the
one generation path, and the files a model is loaded from."""
