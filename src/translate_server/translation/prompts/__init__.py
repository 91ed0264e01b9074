"""Translation prompts: the templates per model family, and how a request becomes a chat or
a few-shot completion prompt."""
