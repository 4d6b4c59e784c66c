"""ifitfits-sim: a statistical game-balance simulator for the card game If It Fits."""

__version__ = "0.1.0"
