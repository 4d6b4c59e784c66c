"""The design-space map (`sim map`): simulations at well-chosen points of a space of deck
counts, an emulator of every metric with intervals, which counts matter (Sobol indices), and
the region of the space that meets every target (history matching).

design -> emulator -> sensitivity, region -> study (plays and saves) -> the page.
"""
