"""The Validation page: the engine against published measurements."""
