"""Asterisk chan_websocket media streams (JSON control messages): the codec, the route, a simulated PBX."""
