"""A remote engine: ``warmline serve`` anywhere, driven through the verbs of a local session.

``wire_session.WireSession`` is the protocol's client half, sans-I/O (importing it loads no
sockets or asyncio); ``session.RemoteEngine`` and ``session.RemoteSession`` hold the connection.
"""
