"""What a caller may spend: requests and characters per minute, characters per calendar month,
requests at once and documents in flight, per key and per account, and the checks that hold
every surface to them."""
