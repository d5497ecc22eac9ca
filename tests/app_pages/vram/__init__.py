"""Tests of app_pages/vram/."""
