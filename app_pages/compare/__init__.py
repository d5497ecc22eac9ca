"""The Compare page: every GPU for one scenario, and the saved scenarios side by side."""
