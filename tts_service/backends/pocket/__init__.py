"""Pocket TTS (Kyutai): an autoregressive backend stepped one 80 ms frame at a time (needs torch)."""
