"""Accounts and their API keys: who calls, what they may do (scopes) and what they own."""
