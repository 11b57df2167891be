"""Telnyx media streaming: TeXML webhook, Ed25519 signature, the stream codec, a simulated carrier."""
