"""The run record: a run directory's layout, run.json, the trial record (result.json) and
its statuses, the transcript format, and atomic writes. The harness writes a run only
through this package and results read it only through it; neither imports the other.

- layout.py      where each file of a run directory is
- meta.py        run.json, the run's finished records, the interventions in words
- record.py      the typed trial record, its schema version and older records' upgrade
- statuses.py    the one table of trial statuses (scored, counts 0, retried, left out)
- transcript.py  transcript.jsonl: appending events, reading them back
- requests.py    emulator_requests.json (the account's request record), old lists too
- atomic.py      write-then-rename JSON writes
"""

from .atomic import read_json, write_json_atomic
from .layout import result_paths, run_json, trial_dir
from .meta import RunNotFound, describe, has_meta, load_results, read_meta, write_meta
from .record import SCHEMA_VERSION, TrialRecord, load_result, new_record, upgrade, write_result
from .requests import load_requests
from .statuses import (
    LEFT_OUT,
    RETRYABLE,
    SCORED,
    TABLE,
    ZERO,
    Status,
    counts,
    is_left_out,
    is_zero,
    needs_retry,
    status,
)
from .transcript import Transcript

__all__ = ["LEFT_OUT", "RETRYABLE", "SCHEMA_VERSION", "SCORED", "TABLE", "ZERO",
           "RunNotFound", "Status", "Transcript", "TrialRecord", "counts", "describe",
           "has_meta", "is_left_out", "is_zero", "load_requests", "load_result", "load_results",
           "needs_retry", "new_record", "read_json", "read_meta", "result_paths", "run_json",
           "status", "trial_dir", "upgrade", "write_json_atomic", "write_meta",
           "write_result"]
