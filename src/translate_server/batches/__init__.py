"""OpenAI's Files and Batches: JSONL files of requests, run as low-priority jobs of the
document queue, their answers written to output and error files."""
