"""``warmline serve --ray``: the WebSocket server as replicas of a Ray Serve application.

``cluster`` starts (or joins) Ray and runs the application; ``replica`` is one replica, the
single server's app on a warm model; ``registry`` is what the replicas report and the server
asks of them; ``metrics`` merges their metrics. Only these modules import Ray (its internals only
``transports.ray_compat``), and only when ``--ray`` is asked for.
"""
