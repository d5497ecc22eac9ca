"""Tests of app_pages/tokens/."""
