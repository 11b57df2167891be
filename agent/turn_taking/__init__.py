"""Turn-taking for voice bots: when the caller has finished, and whether a barge-in was one.

The decisions are sans-I/O state machines (``policy``, ``end_of_turn``, ``barge_in``, ``cues``),
tested on a fake clock; ``strategies`` puts them in a Pipecat pipeline as user-turn strategies,
and ``speculation`` lets a speculative answer reach the TTS (which holds its audio) instead of
waiting inside the LLM service; ``frames`` are what the recognizer and the barge-in say to each
other about speech over the bot (its words so far, and that no more are needed).
"""
