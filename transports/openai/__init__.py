"""OpenAI's speech API on ``warmline serve``: request checks, voice names, encoders, the routes."""
