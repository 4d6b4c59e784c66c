"""How a run folder's Parquet part is encoded: small and quick to write, read back as the
same columns and dtypes (`tests/runs/test_part_encoding.py`). `sim.runs.storage` writes
each part so, atomically, with its manifest."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

# Integer columns that change slowly from row to row, delta-encoded: the sorted ids. Every
# other column is dictionary-encoded, in the `turns` table the seat and the round too: in
# game, seat and round order the seat is runs of one value and the round counts up, which
# a dictionary's run-length and bit-packed codes hold in fewer bytes than deltas (turns
# 1.0 byte a game smaller on the base game, 1.3 on all-random; about as fast to write).
DELTA_COLUMNS = ("game", "seed")
# A cards part of at least this many rows is written one row group per seat: each group's
# dictionaries and metadata cost about 1.7 kB, which fewer rows do not win back (about 700
# games of four players; measured on the base game).
SEAT_GROUP_ROWS = 32_000


def part_bytes(table: pa.Table, name: str = "") -> pa.Buffer:
    """One part, small and quick to write: the slowly changing integer columns
    delta-encoded, every other column dictionary-encoded (small counts take a few bits
    each), zstd pages (at level 1 it wrote as fast as snappy here and about 30% smaller),
    no column statistics (they doubled the write time), and every column without a
    missing value marked required (`_required`). A large cards part is written one row
    group per seat (`_by_seat`)."""
    table = _required(table)
    schema = table.schema
    ints = [f.name for f in schema if pa.types.is_integer(f.type)]
    delta = [n for n in ints if n in DELTA_COLUMNS]
    options = {
        "write_statistics": False,
        "compression": "zstd",
        "compression_level": 1,
        "use_dictionary": [f.name for f in schema if f.name not in delta],
        "column_encoding": {n: "DELTA_BINARY_PACKED" for n in delta},
    }
    sink = pa.BufferOutputStream()
    if name == "cards" and table.num_rows >= SEAT_GROUP_ROWS:
        with pq.ParquetWriter(sink, schema, **options) as writer:
            for group in _by_seat(table):
                writer.write_table(group, row_group_size=group.num_rows)
    else:
        pq.write_table(table, sink, **options)
    return sink.getvalue()


def _required(table: pa.Table) -> pa.Table:
    """The table with each column that holds no missing value marked as never missing: Parquet
    then stores no definition levels for it (one per row), which took 13% of the encoding
    time of an all-random chunk and 1% of its bytes. Readers see the same columns and
    dtypes. The same arrays, no copy."""
    fields = [
        f.with_nullable(f.nullable and c.null_count > 0)
        for f, c in zip(table.schema, table.columns, strict=True)
    ]
    return pa.Table.from_arrays(table.columns, schema=pa.schema(fields, table.schema.metadata))


def _by_seat(cards: pa.Table) -> list[pa.Table]:
    """The cards rows seat by seat, one table per seat (slices: `arrow_tables` writes the
    rows in seat, card and game order). Each seat's row group gets its own dictionaries,
    and a seat's turns are every n-th (R2.5), so its `first_turn` values are a quarter of
    the table's at four players: two bits a row fewer, and `seat` costs nothing. Readers
    put rows in game, seat and card order (`with_zero_card_rows`)."""
    seats = cards.column("seat").to_numpy()
    ends = np.flatnonzero(np.diff(seats)) + 1
    bounds = [0, *ends.tolist(), len(seats)]
    return [cards.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
