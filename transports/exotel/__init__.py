"""Exotel Voicebot applet streams: the stream codec, Basic-auth check, a simulated carrier."""
