"""The sans-I/O engine core: text segmentation, framing and the session state machine.

Nothing under this package may import asyncio, sockets, Pipecat, torch or onnxruntime: commands are
method calls and output piles up until the caller drains it.
"""
