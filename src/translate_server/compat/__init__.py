"""Other translation APIs, spoken by their own clients."""
