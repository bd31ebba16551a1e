"""Use cases: remember, recall, get, update, forget, status. Every entry point calls these."""
