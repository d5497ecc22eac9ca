"""Tests of app_pages/add/."""
