"""How the game feels: each seat's chance of winning round by round as a spectator would
judge it from the table, and what the curves say (suspense, surprise, the decisive moment,
comebacks by probability). `chances` reads a chunk's arrays (what the table shows, the
curves' summaries), `model` fits the two regressions, `forest` walks their trees compiled."""
