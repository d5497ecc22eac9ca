"""Tests of the pages, one folder per page folder of app_pages/."""
