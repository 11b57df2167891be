"""What every carrier's media stream shares: codec helpers, the stream's order, one call's I/O, routes."""
