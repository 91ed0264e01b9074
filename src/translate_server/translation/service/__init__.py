"""Translating a plan: each piece one engine request (pieces, piece_prompts), the texts put
back together (response, outcome), streamed (stream); `TranslationService` is the facade the
routes and the other surfaces call."""
