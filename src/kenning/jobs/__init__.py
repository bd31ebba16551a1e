"""Scheduled maintenance: decay, forgetting, consolidation and insights, run by cron or by the server."""
