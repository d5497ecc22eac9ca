"""Tests of app_pages/validation/."""
