"""Presentation of engine results.  The engine returns data; these modules format it."""
