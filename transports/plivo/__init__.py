"""Plivo audio streams: the answer XML, the V3 signature, the stream codec, a simulated carrier."""
