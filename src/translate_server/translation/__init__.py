"""POST /translate, /detect and /languages, and the DeepL and LibreTranslate APIs built on them."""
