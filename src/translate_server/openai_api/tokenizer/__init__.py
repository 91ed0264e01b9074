"""vLLM's tokenizer routes, /tokenize and /detokenize, and its /version."""
