"""How results travel from a worker process back to the server: JSON and NumPy arrays, never pickle.

Pure module (no Streamlit). The worker pool (:mod:`ui.jobs`) runs fits, embeddings and
graph parsing in child processes, some of them on untrusted input (an uploaded graph, a
link's parameters, a model file). If a child were ever subverted (a native fault no
check foresaw, in a library's parser or a compiled kernel), whatever it sends back must
not be able to take over the server. So a result is encoded as

* one JSON document for its structure (numbers, text, lists, tuples, mappings with any
  hashable keys), where
* NumPy arrays are referenced by index and travel as ``.npy`` blobs of plain numeric,
  boolean or text dtypes (read with ``allow_pickle=False``; the header's shape is checked
  against the blob's length before anything is allocated),
* a fitted model travels as its :func:`curvedtrees.io.dumps` document and is rebuilt by
  :func:`curvedtrees.io.loads`, which validates every field (the same path as a model
  file uploaded by a visitor),
* a few record types of the app (:data:`RECORDS`: datasets, dataset and model records,
  graphs, embeddings) travel as their fields and are rebuilt by their constructors, which
  check them again (a :class:`~curvedtrees.datasets.Dataset` validates its points on the
  manifold; a dataset record's content hash is recomputed here, never taken from the
  child).

Nothing else can be named in a message, so decoding can only ever build those types; a
malformed message raises :class:`TransportError`. The same rules hold for the messages
in the other direction's replies (progress, errors): JSON only.
"""

from __future__ import annotations

import io
import json
import struct
from dataclasses import fields, is_dataclass

import numpy as np

__all__ = ["RECORDS", "TransportError", "decode", "encode"]

_MAGIC = b"CTR1"
# dtypes an array may have: numbers, booleans and fixed-width text. Never object, void
# (structured) or datetime dtypes.
_KINDS = "biufU"
# Nesting of lists, tuples and mappings in a result: real results nest a handful of levels.
_MAX_DEPTH = 64


class TransportError(ValueError):
    """A worker's message that is not a well-formed result (it is dropped, never half-used)."""


def _model_encode(value):
    from curvedtrees import io as model_io

    return model_io.dumps(value)


def _is_model(value) -> bool:
    return type(value).__module__.startswith("curvedtrees.") and hasattr(value, "get_params")


def _record_types() -> dict:
    from curvedtrees.datasets import Dataset, GraphData
    from curvedtrees.embeddings import EmbeddingResult

    from ui.data import DataRecord
    from ui.graph_upload import GraphUpload
    from ui.training import ModelRecord

    return {
        "Dataset": Dataset,
        "DataRecord": DataRecord,
        "ModelRecord": ModelRecord,
        "GraphData": GraphData,
        "GraphUpload": GraphUpload,
        "EmbeddingResult": EmbeddingResult,
    }


# The record types a message may name, with how each is rebuilt from its decoded fields.
RECORDS = ("Dataset", "DataRecord", "ModelRecord", "GraphData", "GraphUpload", "EmbeddingResult")


# ------------------------------------------------------------------------ encoding
def encode(value) -> bytes:
    """``value`` as one message (bytes) for :func:`decode`.

    Raises
    ------
    TypeError
        For a value of a type this transport does not carry.
    """
    arrays: list[np.ndarray] = []
    types = _record_types()
    by_class = {cls: name for name, cls in types.items()}
    document = _encode(value, arrays, by_class, 0)
    header = json.dumps(document, separators=(",", ":"), allow_nan=True).encode()
    parts = [_MAGIC, struct.pack("<Q", len(header)), header, struct.pack("<Q", len(arrays))]
    for array in arrays:
        blob = io.BytesIO()
        np.lib.format.write_array(blob, np.ascontiguousarray(array), allow_pickle=False)
        data = blob.getvalue()
        parts += [struct.pack("<Q", len(data)), data]
    return b"".join(parts)


def _encode(value, arrays, by_class, depth):
    if depth > _MAX_DEPTH:
        raise TypeError("a result nested more than 64 levels deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in _KINDS:
            raise TypeError(f"arrays of dtype {value.dtype} do not travel between processes here")
        arrays.append(value)
        return {"$": "array", "i": len(arrays) - 1}
    if isinstance(value, list):
        return [_encode(v, arrays, by_class, depth + 1) for v in value]
    if isinstance(value, tuple):
        return {"$": "tuple", "v": [_encode(v, arrays, by_class, depth + 1) for v in value]}
    if isinstance(value, dict):
        items = [
            [_encode(k, arrays, by_class, depth + 1), _encode(v, arrays, by_class, depth + 1)] for k, v in value.items()
        ]
        return {"$": "dict", "v": items}
    from curvedtrees.manifolds import Signature

    if isinstance(value, Signature):
        return {"$": "signature", "v": str(value)}
    if type(value) in by_class:
        state = {f.name: _encode(getattr(value, f.name), arrays, by_class, depth + 1) for f in fields(value)}
        return {"$": "record", "type": by_class[type(value)], "v": state}
    if type(value).__module__.startswith("networkx") and type(value).__name__ == "Graph":
        # A graph travels as its nodes and edges (the app's graphs carry labels beside them, in GraphData.y).
        nodes = _encode(list(value.nodes()), arrays, by_class, depth + 1)
        return {
            "$": "graph",
            "nodes": nodes,
            "edges": _encode([list(e) for e in value.edges()], arrays, by_class, depth + 1),
        }
    if _is_model(value):
        return {"$": "model", "v": _model_encode(value)}
    if is_dataclass(value):
        raise TypeError(f"{type(value).__name__} records do not travel between processes here")
    raise TypeError(f"values of type {type(value).__name__} do not travel between processes here")


# ------------------------------------------------------------------------ decoding
def decode(message: bytes, max_bytes: int | None = None):
    """Rebuild the value of a message from :func:`encode`, checking everything it says.

    Parameters
    ----------
    message : bytes
    max_bytes : int, optional
        Refuse a longer message before reading it.

    Raises
    ------
    TransportError
        A malformed or oversized message, an array whose dtype or size is not allowed,
        an unknown type, or a record whose constructor refuses its fields (the reason
        is kept).
    """
    if max_bytes is not None and len(message) > max_bytes:
        raise TransportError(f"a result of {len(message):,} bytes is above the limit of {max_bytes:,}")
    view = memoryview(message)
    if bytes(view[:4]) != _MAGIC:
        raise TransportError("not a result message")
    position = 4
    (length,) = _unpack(view, position)
    position += 8
    if position + length > len(view):
        raise TransportError("a truncated result message")
    try:
        document = json.loads(bytes(view[position : position + length]))
    except (ValueError, RecursionError):
        raise TransportError("a result whose structure is not readable") from None
    position += length
    (count,) = _unpack(view, position)
    position += 8
    if count > len(view):
        raise TransportError("a result message that claims more arrays than it has bytes")
    arrays = []
    for _ in range(count):
        (size,) = _unpack(view, position)
        position += 8
        if position + size > len(view):
            raise TransportError("a truncated array in a result message")
        arrays.append(_read_array(bytes(view[position : position + size])))
        position += size
    if position != len(view):
        raise TransportError("trailing bytes after a result message")
    try:
        return _decode(document, arrays, _record_types(), 0)
    except TransportError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, RecursionError) as exc:
        raise TransportError(f"a result that does not check out ({type(exc).__name__}: {exc})") from None


def _unpack(view, position):
    if position + 8 > len(view):
        raise TransportError("a truncated result message")
    return struct.unpack_from("<Q", view, position)


def _read_array(blob: bytes) -> np.ndarray:
    stream = io.BytesIO(blob)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, _fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, _fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"npy version {version}")
    except ValueError as exc:
        raise TransportError(f"an array header that is not readable ({exc})") from None
    if dtype.kind not in _KINDS or dtype.hasobject or dtype.fields is not None:
        raise TransportError(f"an array of dtype {dtype}, which results may not hold")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if count < 0 or count * dtype.itemsize != len(blob) - stream.tell():
        raise TransportError("an array whose header does not match its data")
    stream.seek(0)
    return np.lib.format.read_array(stream, allow_pickle=False)


def _decode(node, arrays, types, depth):
    if depth > _MAX_DEPTH:
        raise TransportError("a result nested too deeply")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [_decode(v, arrays, types, depth + 1) for v in node]
    if not isinstance(node, dict):
        raise TransportError("a result with an unknown kind of value")
    tag = node.get("$")
    if tag == "array":
        return arrays[node["i"]]
    if tag == "tuple":
        return tuple(_decode(v, arrays, types, depth + 1) for v in node["v"])
    if tag == "dict":
        out = {}
        for key, value in node["v"]:
            key = _decode(key, arrays, types, depth + 1)
            if isinstance(key, (list, dict, np.ndarray)):
                raise TransportError("a mapping with an unhashable key")
            out[key] = _decode(value, arrays, types, depth + 1)
        return out
    if tag == "signature":
        from curvedtrees.manifolds import Signature

        return Signature.parse(str(node["v"]))
    if tag == "model":
        from curvedtrees import io as model_io

        if not isinstance(node["v"], str):
            raise TransportError("a model that is not a document")
        return model_io.loads(node["v"])
    if tag == "graph":
        import networkx as nx

        graph = nx.Graph()
        graph.add_nodes_from(_decode(node["nodes"], arrays, types, depth + 1))
        graph.add_edges_from(tuple(e) for e in _decode(node["edges"], arrays, types, depth + 1))
        return graph
    if tag == "record" and node.get("type") in RECORDS:
        state = {k: _decode(v, arrays, types, depth + 1) for k, v in node["v"].items()}
        return _rebuild(node["type"], types[node["type"]], state)
    raise TransportError(f"a result with an unknown tag {str(tag)[:40]!r}")


def _rebuild(name: str, cls, state: dict):
    known = {f.name for f in fields(cls)}
    if set(state) - known:
        raise TransportError(f"a {name} with unknown fields {sorted(set(state) - known)[:5]}")
    if name == "DataRecord":
        from ui.data import make_record

        # The content hash keys the shared caches: recomputed here from the data, never believed.
        return make_record(state["dataset"], state["recipe"])
    if name == "ModelRecord":
        from ui.training import ModelRecord

        record = ModelRecord(**{k: v for k, v in state.items() if k != "model_id"})
        for attr in ("train_idx", "test_idx"):
            rows = np.asarray(getattr(record, attr))
            if rows.dtype.kind not in "iu" or rows.ndim != 1:
                raise TransportError(f"a model record whose {attr} is not a list of rows")
        return record
    return cls(**state)
