"""Pieces of the command line (:mod:`model.cli`) that each answer one subcommand."""
