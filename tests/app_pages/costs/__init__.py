"""Tests of app_pages/costs/."""
