"""How the cards split: the training layout search and the serving replicas.

``grid`` lists the degrees a search walks; ``training`` searches the fastest training layout that
fits; ``plan`` binds that search to a resolved scenario and caches it; ``serving`` sizes and picks
the serving replicas.
"""

__all__: list[str] = []
