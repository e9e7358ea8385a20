"""Write ``orcjit/data/sample.orc``, the small file that ``orcjit demo`` shows and the wheel ships.

Run from anywhere: ``python scripts/make_sample.py`` (needs pyarrow, in the ``test`` extra). The output is the same
bytes on every run with a given pyarrow: the rows come from a seeded generator and nothing depends on the clock, the
locale or the time zone (another pyarrow may still write different bytes: it records its ORC library's version).

The table is a made-up log of 5,000 taxi trips, chosen to exercise what a reader has to get right in a small file:

- several stripes (a small ``stripe_size``) and row groups of 1,000 rows, so statistics exist at every level;
- zstd compression;
- integers of three widths, a double, a decimal, a date, a timestamp and a boolean;
- strings of few distinct values (a borough, a payment type) and of many (vehicle ids, free-text notes), all
  dictionary encoded, so that dictionaries of 4 entries and of hundreds both occur;
- nulls in several columns, including a column that is mostly null;
- a bloom filter on ``vehicle_id``, the column one would look a single trip up by.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import random
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "orcjit" / "data" / "sample.orc"

NROWS = 5_000
SEED = 20_240_501
# Small enough that 5,000 rows span three stripes (2,000 + 2,000 + 1,000 rows). The writer compares it with its
# buffered bytes only between batches, so the batch size bounds how far a stripe overshoots it.
STRIPE_SIZE = 16 * 1024
BATCH_SIZE = 500
ROW_INDEX_STRIDE = 1_000

BOROUGHS = ["Manhattan", "Brooklyn", "Queens", "Bronx", "Staten Island", "EWR"]
BOROUGH_WEIGHTS = [60, 18, 14, 5, 2, 1]
PASSENGERS = [1, 2, 3, 4, 5, 6]
PASSENGER_WEIGHTS = [70, 15, 6, 4, 3, 2]
PAYMENTS = ["card", "cash", "no charge", "dispute"]
PAYMENT_WEIGHTS = [70, 26, 3, 1]
NOTE_OPENERS = ["Passenger asked", "Driver reported", "Rider mentioned", "Dispatch noted", "Customer requested"]
NOTE_SUBJECTS = ["a detour via", "heavy traffic on", "road works near", "a pickup at", "a drop-off by", "a stop at"]
NOTE_PLACES = [
    "Broadway",
    "5th Ave",
    "the FDR",
    "Atlantic Ave",
    "Queens Blvd",
    "the BQE",
    "Grand Concourse",
    "JFK Terminal 4",
    "LGA Terminal B",
    "Penn Station",
    "Union Square",
    "Hudson Yards",
]
NOTE_ENDINGS = ["", " again", " (second time today)", "; tip in cash", "; luggage in trunk", "; child seat used"]

SCHEMA = pa.schema(
    [
        pa.field("trip_id", pa.int64(), nullable=False),
        pa.field("vendor_id", pa.int8(), nullable=False),
        pa.field("vehicle_id", pa.string(), nullable=False),
        pa.field("pickup_at", pa.timestamp("us")),
        pa.field("pickup_date", pa.date32()),
        pa.field("borough", pa.string()),
        pa.field("passengers", pa.int16()),
        pa.field("distance_km", pa.float64()),
        pa.field("fare", pa.decimal128(8, 2)),
        pa.field("payment", pa.string()),
        pa.field("shared", pa.bool_()),
        pa.field("note", pa.string()),
    ]
)


def make_table(nrows: int = NROWS, seed: int = SEED) -> pa.Table:
    """Build the trips table: ``nrows`` rows from a generator seeded with ``seed``.

    Returns
    -------
    pyarrow.Table
        With the columns of ``SCHEMA``, in pickup order.
    """
    rng = random.Random(seed)
    vehicles = [f"{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{rng.randrange(100, 1000)}" for _ in range(800)]
    start = datetime.datetime(2024, 3, 1, 5, 0, 0)
    columns: dict[str, list] = {field.name: [] for field in SCHEMA}
    clock = start
    for i in range(nrows):
        # trips arrive roughly every 10 minutes across the fleet, so the table covers about a month
        clock += datetime.timedelta(seconds=rng.randrange(60, 1_080), microseconds=rng.randrange(1_000_000))
        distance = round(rng.lognormvariate(1.0, 0.8), 3)
        fare = decimal.Decimal(f"{3.0 + distance * 1.75 + rng.random() * 4:.2f}")
        columns["trip_id"].append(1_000_000 + i)
        columns["vendor_id"].append(rng.choice([1, 2]))
        columns["vehicle_id"].append(rng.choice(vehicles))
        # a few trips lost their meter timestamp: the date and time are null together
        missing_clock = rng.random() < 0.01
        columns["pickup_at"].append(None if missing_clock else clock)
        columns["pickup_date"].append(None if missing_clock else clock.date())
        columns["borough"].append(None if rng.random() < 0.02 else rng.choices(BOROUGHS, BOROUGH_WEIGHTS)[0])
        columns["passengers"].append(None if rng.random() < 0.05 else rng.choices(PASSENGERS, PASSENGER_WEIGHTS)[0])
        columns["distance_km"].append(distance)
        columns["fare"].append(None if rng.random() < 0.03 else fare)
        columns["payment"].append(rng.choices(PAYMENTS, PAYMENT_WEIGHTS)[0])
        columns["shared"].append(None if rng.random() < 0.04 else rng.random() < 0.12)
        columns["note"].append(_note(rng) if rng.random() < 0.15 else None)
    return pa.table(columns, schema=SCHEMA)


def _note(rng: random.Random) -> str:
    return (
        f"{rng.choice(NOTE_OPENERS)} {rng.choice(NOTE_SUBJECTS)} {rng.choice(NOTE_PLACES)}"
        f"{rng.choice(NOTE_ENDINGS)}, ref #{rng.randrange(10_000, 100_000)}"
    )


def write_sample(path: Path = OUT) -> None:
    """Write the sample table to ``path`` as ORC."""
    table = make_table()
    path.parent.mkdir(parents=True, exist_ok=True)
    orc.write_table(
        table,
        str(path),
        file_version="0.12",
        batch_size=BATCH_SIZE,
        stripe_size=STRIPE_SIZE,
        compression="zstd",
        row_index_stride=ROW_INDEX_STRIDE,
        # the writer drops a column's dictionary when distinct/non-null values exceeds this ratio: 1.0 never does
        dictionary_key_size_threshold=1.0,
        # ORC column ids, not Arrow field indices: id 0 is the root struct, so field i is column i + 1
        bloom_filter_columns=[SCHEMA.get_field_index("vehicle_id") + 1],
        bloom_filter_fpp=0.01,
    )


def main(argv: list[str] | None = None) -> int:
    """Write the sample file and say where it went and how big it is."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=OUT, help=f"where to write (default: {OUT})")
    args = parser.parse_args(argv)
    write_sample(args.output)
    print(f"wrote {args.output} ({args.output.stat().st_size} bytes, {NROWS} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
