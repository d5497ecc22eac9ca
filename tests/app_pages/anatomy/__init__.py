"""Tests of app_pages/anatomy/."""
