"""Tests of app_pages/method/."""
