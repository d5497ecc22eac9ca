"""The GPU anatomy page: the memory hierarchy, the links and the generations of one GPU."""
