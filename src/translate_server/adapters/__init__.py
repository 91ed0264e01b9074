"""LoRA adapters: what each serves, which one answers a request, loading them at run
time, and making them (`translate-server adapt`)."""
