"""Speaking HTTP: the gate, the request log and metrics, error answers, streams and health."""
