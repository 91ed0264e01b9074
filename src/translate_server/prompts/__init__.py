"""Translation prompts: the wording per model family (`templates.toml`) and the few-shot
completion prompts that base models translate with (`completion.py`)."""
