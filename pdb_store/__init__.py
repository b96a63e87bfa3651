"""Additive disjoint pattern databases built once into a verified ``.npy`` store."""
