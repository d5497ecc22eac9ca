"""Tests of app_pages/overview/."""
