"""Versioned JSON serialisation of fitted estimators, without pickle.

``dumps(estimator)`` writes a JSON document; ``loads(text)`` rebuilds an estimator
that makes identical predictions. Model files are untrusted input (the app lets
users upload them), so ``loads`` only instantiates classes from an allow-list,
checks every field's type and size, rebuilds tree arrays through the same
structural checks as a freshly fitted tree, and reports any problem as a
``ValueError`` that says what is wrong and where. Nothing is ever executed or
unpickled.

Document layout::

    {"format": "curvedtrees-model", "version": 1,
     "estimator": "<class name>", "params": {...}, "fitted": {...}}

Each estimator family registers its classes with :func:`register` in its own
serialization module, and declares that module as an entry point of the group
``curvedtrees.serializers`` (``SERIALIZERS_GROUP``) in its distribution's metadata;
curvedtrees' own families are declared in its ``pyproject.toml``. Those modules are
imported on demand, the first time a name is not registered yet, so a third-party
package adds estimators by declaring an entry point, and ``io`` never names a layer
above it. Entry points are installed code (trusted); a document only chooses among
the classes they registered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from importlib.metadata import entry_points

import numpy as np

from .limits import (
    MAX_ARRAY_ITEMS,
    MAX_CLASS_LABEL_CHARS,
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_DEPTH,
    MAX_ESTIMATORS,
    MAX_MODEL_CLASSES,
    MAX_MODEL_OUTPUT,
)

__all__ = [
    "FORMAT",
    "MAX_ARRAY_ITEMS",
    "MAX_DOCUMENT_BYTES",
    "MAX_ESTIMATORS",
    "SERIALIZERS_GROUP",
    "VERSION",
    "check_output_bound",
    "decode_array",
    "decode_classes",
    "decode_labels",
    "dumps",
    "encode_array",
    "load_providers",
    "loads",
    "register",
]

FORMAT = "curvedtrees-model"
VERSION = 1
# Kept for callers of the old name: a text of more characters than this has more bytes too.
MAX_DOCUMENT_CHARS = MAX_DOCUMENT_BYTES

# The entry-point group naming the modules that call register() when imported.
SERIALIZERS_GROUP = "curvedtrees.serializers"

_REGISTRY: dict[str, tuple[type, Callable, Callable, Callable | None, Callable | None]] = {}
# Entry points already imported (by name), so a lookup imports each provider at most once.
_LOADED_PROVIDERS: set[str] = set()


def register(
    cls: type,
    dump_fitted: Callable,
    load_fitted: Callable,
    dump_params: Callable | None = None,
    load_params: Callable | None = None,
) -> None:
    """Make ``cls`` serialisable.

    Parameters
    ----------
    cls : type
        A scikit-learn estimator class; its name identifies it in documents.
    dump_fitted : callable
        ``dump_fitted(estimator) -> dict`` of JSON-compatible fitted state.
    load_fitted : callable
        ``load_fitted(estimator, state)`` sets the fitted attributes on an estimator
        built from the stored parameters; raises ``ValueError`` on bad state.
    dump_params, load_params : callable, optional
        For parameters that are not plain JSON (such as a wrapped estimator):
        ``dump_params(estimator) -> dict`` and ``load_params(dict) -> dict`` of
        constructor keyword arguments, validating untrusted input. By default
        parameters are stored as they are (strings, numbers, lists, signatures).
    """
    _REGISTRY[cls.__name__] = (cls, dump_fitted, load_fitted, dump_params, load_params)


def load_providers() -> list[str]:
    """Import every serialiser module declared in the ``curvedtrees.serializers`` entry points.

    Returns
    -------
    list of str
        The entry-point names imported by this call (those imported before are skipped).
        A provider whose own dependencies are missing (an extra not installed) is
        skipped too: its estimators cannot exist in this environment, and a document
        naming them is then refused as unknown.
    """
    loaded = []
    for entry in sorted(entry_points(group=SERIALIZERS_GROUP), key=lambda e: e.name):
        if entry.name in _LOADED_PROVIDERS:
            continue
        try:
            entry.load()
        except ImportError:
            continue
        _LOADED_PROVIDERS.add(entry.name)
        loaded.append(entry.name)
    return loaded


def _lookup(name: str):
    if name not in _REGISTRY:
        load_providers()
    if name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise ValueError(f"unknown estimator {name!r} in model document; known: {known}")
    return _REGISTRY[name]


# ------------------------------------------------------------------- arrays
def encode_array(array: np.ndarray) -> dict:
    """JSON form of a numeric array: dtype, shape and a flat list (NaN/inf as strings)."""
    array = np.asarray(array)
    if array.dtype.kind == "f":
        flat = [_encode_float(v) for v in array.ravel().tolist()]
        dtype = "float64"
    elif array.dtype.kind in "iu":
        flat = array.ravel().tolist()
        dtype = "int64"
    elif array.dtype.kind == "b":
        flat = array.ravel().tolist()
        dtype = "bool"
    else:
        raise TypeError(f"cannot encode an array of dtype {array.dtype}")
    return {"dtype": dtype, "shape": list(array.shape), "data": flat}


def _encode_float(value: float):
    # JSON has no NaN or infinity; spell them as strings so the document stays standard.
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


_SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_DTYPES = {"float64": np.float64, "int64": np.int64, "bool": np.bool_}


class _Decoded(dict):
    """An encoded array whose ``data`` list :func:`loads` already turned into an ndarray.

    Same keys as the JSON object, so checks of the object's shape still pass; only
    :func:`loads` makes these (JSON cannot hold an ndarray), while parsing, so that each
    array's Python list is freed as soon as it is read instead of living until the whole
    document is parsed (Python floats take 32 bytes where the array takes 8).
    """


def _array_from_fields(kind, shape, data) -> np.ndarray:
    """Validate the fields of an encoded array and build it; ``ValueError`` says what is wrong."""
    if not isinstance(kind, str) or kind not in _DTYPES:
        raise ValueError(f"dtype must be float64, int64 or bool, got {kind!r}")
    if not isinstance(shape, list) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
        raise ValueError("shape must be a list of non-negative integers")
    if len(shape) > 32:  # NumPy's own limit on dimensions
        raise ValueError(f"shape has {len(shape)} dimensions; at most 32")
    size = math.prod(shape)
    if size > MAX_ARRAY_ITEMS:
        raise ValueError(f"{size} items exceed the limit of {MAX_ARRAY_ITEMS} (curvedtrees.limits.MAX_ARRAY_ITEMS)")
    if isinstance(data, np.ndarray):  # decoded while parsing (see _Decoded)
        if data.dtype != _DTYPES[kind] or data.shape != tuple(shape):
            raise ValueError(f"data must hold {size} items of {kind} for shape {shape}")
        return data
    if not isinstance(data, list) or len(data) != size:
        raise ValueError(f"data must be a list of {size} numbers for shape {shape}")
    # The set of item types decides, in one C-speed pass, which strict conversion applies
    # (np.asarray alone would accept "1.5" as a float and true as 1).
    types = set(map(type, data))
    if kind == "float64":
        if str in types:
            bad = next((v for v in data if isinstance(v, str) and v not in _SPECIAL_FLOATS), None)
            if bad is not None:
                raise ValueError(f"{bad!r} is not a number")
            data = [_SPECIAL_FLOATS[v] if isinstance(v, str) else v for v in data]
            types.discard(str)
        if not types <= {float, int}:
            bad = next(v for v in data if type(v) not in (float, int))
            raise ValueError(f"{bad!r} is not a number")
        try:
            return np.array(data, dtype=np.float64).reshape(shape)
        except OverflowError:  # an integer beyond float64's range
            raise ValueError("a number is beyond the float64 range") from None
    if kind == "int64":
        if not types <= {int}:
            raise ValueError("every item must be an integer")
        try:
            return np.array(data, dtype=np.int64).reshape(shape)
        except OverflowError:
            raise ValueError("integers out of the int64 range") from None
    if not types <= {bool}:
        raise ValueError("every item must be true or false")
    return np.array(data, dtype=bool).reshape(shape)


def decode_array(obj, where: str, dtype: str | None = None, ndim: int | None = None) -> np.ndarray:
    """Inverse of :func:`encode_array`, validating every field; ``where`` names it in errors."""
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        raise ValueError(f"{where}: expected an object with keys dtype, shape and data")
    kind, shape = obj["dtype"], obj["shape"]
    if not isinstance(kind, str) or kind not in _DTYPES or (dtype is not None and kind != dtype):
        raise ValueError(f"{where}: dtype must be {dtype or 'float64, int64 or bool'}, got {kind!r}")
    if ndim is not None and isinstance(shape, list) and len(shape) != ndim:
        raise ValueError(f"{where}: expected {ndim} dimensions, got shape {shape}")
    try:
        return _array_from_fields(kind, shape, obj["data"])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _decode_while_parsing(obj: dict):
    """``json.loads`` object hook: encoded arrays become arrays as soon as they are read.

    Anything that does not decode stays as it is, for :func:`decode_array` to report
    with the field's name.
    """
    if len(obj) == 3 and "data" in obj and "dtype" in obj and "shape" in obj and isinstance(obj["data"], list):
        try:
            array = _array_from_fields(obj["dtype"], obj["shape"], obj["data"])
        except ValueError:
            return obj
        return _Decoded(dtype=obj["dtype"], shape=obj["shape"], data=array)
    return obj


# Distinct float literals that one parse shares (a dict entry is about 100 bytes,
# so at most 6.5 MB). Repeated values (0.0, 1.0, thresholds of sibling nodes, or
# a hostile document's one short literal repeated) then cost a list slot (8 bytes)
# instead of a new float object (24 more); literals that never repeat cost as before.
_FLOAT_CACHE_SIZE = 65_536


def _float_parser():
    """A ``parse_float`` for one ``json.loads`` call that shares repeated values."""
    cache: dict[str, float] = {}

    def parse(literal: str) -> float:
        value = cache.get(literal)
        if value is None:
            value = float(literal)
            if len(cache) < _FLOAT_CACHE_SIZE:
                cache[literal] = value
        return value

    return parse


def _plain(value):
    """``value`` with arrays decoded while parsing turned back into JSON lists (for parameters)."""
    if isinstance(value, _Decoded):
        return {"dtype": value["dtype"], "shape": value["shape"], "data": value["data"].ravel().tolist()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _too_deep() -> str:
    return (
        f"model document nests objects and lists deeper than {MAX_DOCUMENT_DEPTH} levels "
        "(curvedtrees.limits.MAX_DOCUMENT_DEPTH); real model files nest fewer than 16"
    )


def _check_depth(document) -> None:
    """Refuse nesting deeper than MAX_DOCUMENT_DEPTH (iteratively: no recursion to exhaust)."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DOCUMENT_DEPTH:
            raise ValueError(_too_deep())
        if isinstance(value, _Decoded):
            continue
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def encode_labels(labels: np.ndarray) -> dict:
    """Class labels (numbers, strings or booleans) with their dtype kind."""
    labels = np.asarray(labels)
    if labels.dtype.kind in "iu":
        return {"kind": "int", "values": labels.tolist()}
    if labels.dtype.kind == "f":
        return {"kind": "float", "values": [_encode_float(v) for v in labels.tolist()]}
    if labels.dtype.kind == "b":
        return {"kind": "bool", "values": labels.tolist()}
    return {"kind": "str", "values": [str(v) for v in labels.tolist()]}


def decode_labels(obj, where: str) -> np.ndarray:
    """Inverse of :func:`encode_labels`, validating every label; ``ValueError`` names ``where``.

    Integers must fit int64 and floats must be finite (JSON's 1e400 reads as infinity);
    a text label may have at most :data:`~curvedtrees.limits.MAX_CLASS_LABEL_CHARS`
    characters, because NumPy stores text labels at the width of the longest one.
    """
    if not isinstance(obj, dict) or set(obj) != {"kind", "values"} or not isinstance(obj["values"], list):
        raise ValueError(f"{where}: expected an object with keys kind and values (a list)")
    kind, values = obj["kind"], obj["values"]
    if len(values) > MAX_ARRAY_ITEMS:
        raise ValueError(f"{where}: too many labels")
    checks = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
    }
    if kind not in checks or not all(checks[kind](v) for v in values):
        raise ValueError(f"{where}: labels must all be of kind int, float, bool or str")
    if kind == "str" and values and max(map(len, values)) > MAX_CLASS_LABEL_CHARS:
        raise ValueError(
            f"{where}: a label has {max(map(len, values)):,} characters; the limit is {MAX_CLASS_LABEL_CHARS:,} "
            "(curvedtrees.limits.MAX_CLASS_LABEL_CHARS)"
        )
    dtype = {"int": np.int64, "float": np.float64, "bool": bool, "str": str}[kind]
    try:
        labels = np.asarray(values, dtype=dtype)
    except OverflowError:  # a JSON integer beyond int64 (or, for float labels, beyond float64)
        bound = "the int64 range" if kind == "int" else "the float64 range"
        raise ValueError(f"{where}: labels must lie in {bound}") from None
    if kind == "float" and not np.all(np.isfinite(labels)):
        raise ValueError(f"{where}: labels must be finite numbers (JSON numbers such as 1e400 read as infinity)")
    return labels


def decode_classes(obj, where: str) -> np.ndarray:
    """The ``classes_`` of a classifier document: :func:`decode_labels`, distinct, 1 to ``MAX_MODEL_CLASSES``.

    Raises
    ------
    ValueError
        Malformed labels (see :func:`decode_labels`), none, repeated ones, or more than
        :data:`~curvedtrees.limits.MAX_MODEL_CLASSES` (``predict_proba`` allocates one
        number per class and predicted row).
    """
    if isinstance(obj, dict) and isinstance(obj.get("values"), list) and len(obj["values"]) > MAX_MODEL_CLASSES:
        raise ValueError(
            f"{where}: {len(obj['values']):,} classes; the limit is {MAX_MODEL_CLASSES:,} "
            "(curvedtrees.limits.MAX_MODEL_CLASSES)"
        )
    classes = decode_labels(obj, where)
    if classes.size == 0 or np.unique(classes).size != classes.size:
        raise ValueError(f"{where}: classes must be distinct and non-empty")
    return classes


def check_output_bound(bound: float, where: str, what: str, limit: float = MAX_MODEL_OUTPUT) -> None:
    """Refuse a model whose outputs can reach ``bound`` beyond ``limit``, naming ``where`` and ``what``.

    Parameters
    ----------
    bound : float
        The largest magnitude any prediction or raw score of the model can take, computed
        from the file's own numbers along every path (for an ensemble, the sum over its
        trees of each tree's largest leaf magnitude, with the learning rate and baseline).
    where, what : str
        The field path and a few words on what was summed, for the message.
    limit : float, default=MAX_MODEL_OUTPUT
        Another bound where the output overflows sooner (float32, an exponential).
    """
    if not bound <= limit:  # also true for nan
        name = "curvedtrees.limits.MAX_MODEL_OUTPUT" if limit == MAX_MODEL_OUTPUT else "the overflow of its output"
        raise ValueError(
            f"{where}: {what} can reach {bound:.3g}, beyond {limit:.3g} ({name}): a prediction would overflow or "
            "turn into NaN"
        )


# ------------------------------------------------------------------ documents
def _jsonable_params(params: dict, where: str) -> dict:
    from .manifolds import Signature

    out = {}
    for key, value in params.items():
        if isinstance(value, Signature):
            value = str(value)
        elif isinstance(value, np.integer):
            value = int(value)
        elif isinstance(value, np.floating):
            value = float(value)
        elif isinstance(value, (list, tuple)):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        if value is not None and not isinstance(value, (str, int, float, bool, list, dict)):
            raise TypeError(
                f"{where}: parameter {key}={value!r} cannot be stored in JSON (use an int random_state, "
                "a signature string, and plain numbers)"
            )
        out[key] = value
    return out


def dumps(estimator, indent: int | None = None) -> str:
    """Serialise a fitted (or unfitted) estimator to a JSON string.

    Raises
    ------
    TypeError
        If the estimator's class is not registered or a parameter is not JSON-able
        (for example a ``RandomState`` instance as ``random_state``).

    Examples
    --------
    >>> import json
    >>> from curvedtrees import ProductDecisionTreeClassifier, dumps, make_classification
    >>> X, y = make_classification("H2 x S1", n_samples=100, random_state=0)
    >>> text = dumps(ProductDecisionTreeClassifier(signature="H2 x S1", max_depth=3).fit(X, y))
    >>> document = json.loads(text)
    >>> document["format"], document["version"], document["estimator"]
    ('curvedtrees-model', 1, 'ProductDecisionTreeClassifier')
    """
    name = type(estimator).__name__
    try:
        _, dump_fitted, _, dump_params, _ = _lookup(name)
    except ValueError:
        raise TypeError(f"{name} cannot be serialised: it is not registered with curvedtrees.io") from None
    params = dump_params(estimator) if dump_params else estimator.get_params(deep=False)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "estimator": name,
        "params": _jsonable_params(params, name),
        "fitted": dump_fitted(estimator),
    }
    return json.dumps(document, indent=indent, allow_nan=False)


def loads(text: str | bytes):
    """Rebuild an estimator from :func:`dumps` output, validating untrusted input.

    Raises
    ------
    ValueError
        If the text is not JSON, not a model document of a supported version, names
        an unknown estimator, or holds parameters or fitted state that are malformed,
        out of range or inconsistent. The message says which field is wrong.

    Examples
    --------
    >>> import numpy as np
    >>> from curvedtrees import ProductRandomForestClassifier, dumps, loads, make_classification
    >>> X, y = make_classification("S2 x E2", n_samples=200, random_state=0)
    >>> forest = ProductRandomForestClassifier(5, signature="S2 x E2", random_state=0).fit(X, y)
    >>> same = loads(dumps(forest))
    >>> bool(np.array_equal(same.predict_proba(X), forest.predict_proba(X)))
    True
    >>> loads('{"format": "curvedtrees-model", "version": 1, "estimator": "os.system"}')
    Traceback (most recent call last):
        ...
    ValueError: unknown estimator 'os.system' in model document; known: ...
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise ValueError(f"expected the model document as text, got {type(text).__name__}")
    # Bounded before decoding or parsing. A str of more characters than the limit has more
    # bytes too; a shorter one may have up to 4x as many bytes, but the parser's memory
    # follows characters, which is what the limit is for.
    if len(text) > MAX_DOCUMENT_BYTES:
        unit = "characters" if isinstance(text, str) else "bytes"
        raise ValueError(
            f"model document too large ({len(text):,} {unit}; the limit is {MAX_DOCUMENT_BYTES:,} "
            "bytes, curvedtrees.limits.MAX_DOCUMENT_BYTES)"
        )
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("model file is not UTF-8 text") from None
    try:
        document = json.loads(
            text, parse_constant=_reject_constant, parse_float=_float_parser(), object_hook=_decode_while_parsing
        )
    except json.JSONDecodeError as exc:
        raise ValueError(f"model file is not valid JSON: {str(exc)[:200]}") from None
    except RecursionError:
        # The parser's own guard against deep nesting (about 1,000 levels) fires before
        # _check_depth can see the document: the same limit, in the same words.
        raise ValueError(_too_deep()) from None
    if not isinstance(document, dict):
        raise ValueError("model document must be a JSON object")
    _check_depth(document)
    if document.get("format") != FORMAT:
        raise ValueError(f"not a model document: 'format' must be {FORMAT!r}")
    version = document.get("version")
    # An integer, exactly: JSON's true and 1.0 compare equal to 1 in Python but are not versions.
    if type(version) is not int or version != VERSION:
        raise ValueError(f"unsupported model document version {version!r}; this version reads {VERSION} (an integer)")
    extra = set(document) - {"format", "version", "estimator", "params", "fitted"}
    if extra:
        raise ValueError(f"unexpected keys in model document: {sorted(extra)}")
    name = document.get("estimator")
    if not isinstance(name, str):
        raise ValueError("'estimator' must be a class name")
    cls, _, load_fitted, _, load_params = _lookup(name)
    params = document.get("params")
    if not isinstance(params, dict):
        raise ValueError("'params' must be an object")
    params = _plain(params)  # parameters are read as JSON, whatever looked like an array
    known = set(cls().get_params(deep=False))
    unknown = set(params) - known
    if unknown:
        raise ValueError(f"'params' has unknown parameters for {name}: {sorted(unknown)}")
    try:
        estimator = cls(**(load_params(params) if load_params else params))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"invalid parameters for {name}: {exc}") from None
    fitted = document.get("fitted")
    if fitted is not None:
        if not isinstance(fitted, dict):
            raise ValueError("'fitted' must be an object or null")
        try:
            load_fitted(estimator, fitted)
        except (TypeError, KeyError, IndexError) as exc:
            raise ValueError(f"malformed fitted state for {name}: {exc!r}") from None
    return estimator


def _reject_constant(name):
    raise ValueError(f"model file contains the non-standard JSON constant {name}")
