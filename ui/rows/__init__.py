"""Each page's shaping, one module per page, mirroring ui/charts.

Engine results in; chart rows, metric arguments and sentences out. Pure functions; units are
converted here, as labelled.
"""
