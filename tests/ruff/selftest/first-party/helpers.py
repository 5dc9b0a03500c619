"""A module of the project: first-party."""
