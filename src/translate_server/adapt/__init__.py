"""`translate-server adapt`: a LoRA adapter trained with peft on a team's own translations, in the
service's own prompt format (data), with held-out chrF and resume (train), from the command line
(cli). A tool: it imports the domains whose formats it trains in; nothing serving imports it."""
