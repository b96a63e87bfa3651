"""The sliding-tile domain and its optimal search algorithms."""
