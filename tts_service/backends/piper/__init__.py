"""piper: the user's Piper VITS voices (``NAME.onnx`` + ``NAME.onnx.json``), phonemized by espeak-ng.

Needs ``pip install 'warmline[piper]'`` (phonemizer, and espeak-ng's library and data in a wheel).
"""
