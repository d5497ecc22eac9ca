"""The app's pages, one folder each: its script (page.py), the modules only it uses, its texts (zh.yaml)."""
