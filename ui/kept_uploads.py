"""Uploads kept on the server for a while, so that reloading the browser tab restores them.

Pure module (no Streamlit): the Data page keeps an upload it adopts here, and the
first page view of a session (``ui.chrome``) restores it from the link.

An uploaded table is not in a share link (its data is not a recipe). When the Data
page adopts one, it keeps the file's *raw bytes* and the choices made on them (the
signature, the column mapping, the task, the fixes) under an unguessable token
(:func:`secrets.token_urlsafe`) that goes into that tab's URL (``?upload=...``). A
reload reads the same bytes again through the same checked path
(:func:`ui.uploads.read_table`, :func:`ui.uploads.convert_upload`,
:func:`ui.uploads.upload_record`): nothing is unpickled, and a kept file passes the
same checks as a new one.

What is kept is bounded: each file by the upload limit (``MAX_UPLOAD_BYTES``), their
number by ``MAX_KEPT_UPLOADS`` and their total size by ``MAX_KEPT_UPLOAD_BYTES`` (the
oldest go first), and each expires after ``KEPT_UPLOAD_SECONDS``. Entries live in the
server's memory only, are found by their token alone (the store is keyed by the token's
SHA-256 and has no way to list them), and are never shown to a session that does not
hold the token.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from curvedtrees.limits import KEPT_UPLOAD_SECONDS, MAX_KEPT_UPLOAD_BYTES, MAX_KEPT_UPLOADS, MAX_UPLOAD_BYTES

__all__ = ["GONE_TEXT", "TOKEN_BYTES", "KeptUpload", "KeptUploads", "restore_record", "valid_token"]

# 24 random bytes: 32 URL-safe characters, far beyond guessing.
TOKEN_BYTES = 24
# What a token looks like (token_urlsafe's alphabet); anything else is refused before any lookup.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
# The one message for a token that is wrong, expired or pushed out: which of them is not said,
# so that a link tells nothing about other people's uploads.
GONE_TEXT = (
    "This link's uploaded dataset is not kept on the server any more (uploads are kept for "
    f"{KEPT_UPLOAD_SECONDS // 3600} hours, for the browser tab they were uploaded in): upload the file again on the "
    "Data page. Showing the default demo instead."
)


def valid_token(token) -> bool:
    """Whether ``token`` has the form of a token this module makes (checked before any lookup)."""
    return isinstance(token, str) and _TOKEN.fullmatch(token) is not None


def _key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class KeptUpload:
    """An upload as the Data page adopted it: the file's bytes and the choices made on it.

    Attributes
    ----------
    raw : bytes
        The file as uploaded (at most ``MAX_UPLOAD_BYTES``).
    name : str
        Its file name (picks the reader: CSV, TSV, NPY, NPZ).
    signature : str
    mapping : dict
        The column mapping (:func:`ui.uploads.suggest_mapping`, as edited).
    task : str
        "classification" or "regression".
    project, drop : bool
        The fixes applied (projection onto the manifold, rows with problems dropped).
    created : float
        When it was kept (the store's clock).
    """

    raw: bytes
    name: str
    signature: str
    mapping: dict
    task: str
    project: bool = False
    drop: bool = False
    created: float = field(default=0.0, compare=False)


class KeptUploads:
    """Uploads kept by token: bounded in count and bytes, expiring, safe for concurrent sessions.

    Parameters
    ----------
    max_count, max_bytes : int
        At most this many entries and bytes of files; the oldest are dropped to make room.
    ttl : float
        Seconds an entry lives.
    clock : callable, optional
        Seconds (default :func:`time.monotonic`; the tests pass their own).
    """

    def __init__(
        self,
        max_count: int = MAX_KEPT_UPLOADS,
        max_bytes: int = MAX_KEPT_UPLOAD_BYTES,
        ttl: float = KEPT_UPLOAD_SECONDS,
        clock=time.monotonic,
    ):
        self.max_count, self.max_bytes, self.ttl, self.clock = int(max_count), int(max_bytes), float(ttl), clock
        self._entries: OrderedDict[str, KeptUpload] = OrderedDict()  # oldest first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._entries)

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, e in self._entries.items() if now - e.created >= self.ttl]:
            del self._entries[key]

    def keep(self, raw: bytes, name: str, signature, mapping: dict, task: str, project=False, drop=False) -> str:
        """Keep an upload; returns its token (the only way to reach it again).

        Raises
        ------
        ValueError
            A file over the upload limit (it was refused when uploaded; never kept).
        """
        raw = bytes(raw)
        if len(raw) > min(MAX_UPLOAD_BYTES, self.max_bytes):
            raise ValueError(f"{name} is over the upload limit of {MAX_UPLOAD_BYTES // 2**20} MB; it is not kept")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        entry = KeptUpload(
            raw, str(name), str(signature), dict(mapping), str(task), bool(project), bool(drop), self.clock()
        )
        with self._lock:
            self._expire()
            while self._entries and (
                len(self._entries) >= self.max_count
                or sum(len(e.raw) for e in self._entries.values()) + len(raw) > self.max_bytes
            ):
                self._entries.popitem(last=False)  # the oldest makes room
            self._entries[_key(token)] = entry
        return token

    def get(self, token) -> KeptUpload | None:
        """The upload kept under ``token``; None when the token is malformed, unknown or expired."""
        if not valid_token(token):
            return None
        with self._lock:
            self._expire()
            return self._entries.get(_key(token))


def restore_record(kept: KeptUpload, token: str):
    """The dataset of a kept upload, read again through the checks of a new upload.

    Returns
    -------
    ui.data.DataRecord
        Its recipe carries ``kept``: the token, so that the tab's URL keeps it.

    Raises
    ------
    ValueError
        (``UploadError`` included) if the file no longer passes (it did when it was kept).
    """
    from ui.uploads import convert_upload, read_table, upload_record

    table = read_table(kept.name, kept.raw)
    result = convert_upload(table, kept.signature, kept.mapping, project=kept.project, drop_bad=kept.drop)
    record = upload_record(result, kept.signature, kept.task, kept.name, kept.mapping)
    record.recipe["kept"] = token
    return record
