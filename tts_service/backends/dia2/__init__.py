"""Dia2 (Nari Labs): an autoregressive dialogue backend stepped one 80 ms frame at a time (needs torch)."""
