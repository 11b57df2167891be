"""Browser calls over WebRTC: the offer endpoint and call page, and a plain aiortc engine track."""
