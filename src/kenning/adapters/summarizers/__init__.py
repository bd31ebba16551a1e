"""Summary writers behind the Summarizer port."""
