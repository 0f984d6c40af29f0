#!/usr/bin/env python3
"""Writes fuzz/nsys_base.sqlite, the Nsight Systems export the SQLite fuzzer edits: the real export
of ../shared cut down to the tables the reader queries and a few rows each, so that one fuzzer
execution copies tens of kilobytes, not megabytes.

    python3 fuzz/make_nsys_base.py ../shared/data/traces/nsys/pipit_saxpy_mpi_cuda_perlmutter_a100.sqlite
"""
import os
import sqlite3
import sys

KEPT_ROWS = {
    "StringIds": None,  # every string: the rows kept below name them by id
    "ThreadNames": None,
    "PROCESSES": 8,
    "TARGET_INFO_GPU": None,
    "CUPTI_ACTIVITY_KIND_RUNTIME": 40,
    "NVTX_EVENTS": None,
    "CUPTI_ACTIVITY_KIND_KERNEL": None,
    "CUPTI_ACTIVITY_KIND_MEMCPY": None,
    "CUPTI_ACTIVITY_KIND_MEMSET": None,
}

source, target = sys.argv[1], os.path.join(os.path.dirname(__file__), "nsys_base.sqlite")
if os.path.exists(target):
    os.remove(target)
database = sqlite3.connect(target)
database.execute("PRAGMA page_size = 512")  # the smallest pages make the smallest file
database.execute("ATTACH DATABASE ? AS real", (f"file:{source}?mode=ro",))
for table, rows in KEPT_ROWS.items():
    (schema,) = database.execute(
        "SELECT sql FROM real.sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    database.execute(schema)
    limit = "" if rows is None else f" LIMIT {rows}"
    database.execute(f'INSERT INTO main."{table}" SELECT * FROM real."{table}"{limit}')
# Strings no kept row refers to (by any integer column) go too.
referenced = set()
for table in KEPT_ROWS:
    if table == "StringIds":
        continue
    for row in database.execute(f'SELECT * FROM main."{table}"'):
        referenced.update(value for value in row if isinstance(value, int))
for (string_id,) in database.execute("SELECT id FROM StringIds").fetchall():
    if string_id not in referenced:
        database.execute("DELETE FROM StringIds WHERE id = ?", (string_id,))
database.commit()
database.execute("DETACH DATABASE real")
database.execute("VACUUM")
database.close()
print(target, os.path.getsize(target), "bytes")
