"""Tests of app_pages/compare/."""
