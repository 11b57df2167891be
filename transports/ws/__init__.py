"""The WebSocket server (``warmline serve``): protocol v1, one engine session per connection."""
