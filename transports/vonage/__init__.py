"""Vonage Voice API WebSockets: the NCCO answer, signed webhooks (JWT), the codec, a simulated carrier."""
