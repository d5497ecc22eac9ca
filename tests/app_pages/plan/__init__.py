"""Tests of app_pages/plan/."""
