"""Reading an uploaded table, mapping its columns onto a signature, and explaining problems.

Pure module (no Streamlit). Files are untrusted: only CSV / TSV text and NumPy
``.npy`` / ``.npz`` files are read, NumPy files with ``allow_pickle=False`` (a
pickle renamed to ``.npy`` is refused, never executed), and size, row and
column counts are capped before anything is converted.

Each component's coordinates may be given in the model that is natural for it
(ambient hyperboloid or sphere coordinates, the Poincaré or Klein ball,
latitude and longitude in degrees, an angle in radians, stereographic
coordinates); :func:`convert_upload` turns them into ambient coordinates with
``curvedtrees.coords`` and writes a per-component report ("S2: 12 rows off the sphere,
largest relative error 0.31 (rows 3, 5, 8, ...)").
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from curvedtrees import coords
from curvedtrees.limits import (
    MAX_CSV_FIELD_CHARS,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_CELLS,
    MAX_UPLOAD_COLUMNS,
    MAX_UPLOAD_DECODED_BYTES,
    MAX_UPLOAD_MB,
    MAX_UPLOAD_ROWS,
)
from curvedtrees.manifolds import CHECK_RTOL, ProductManifold, Signature, manifold_for

from ui.text import plural as _plural

__all__ = [
    "ACCEPTED_TYPES",
    "MAX_CELLS",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_UPLOAD_BYTES",
    "MAX_UPLOAD_MB",
    "UPLOADER_MB",
    "ComponentReport",
    "TextFormat",
    "UploadError",
    "UploadResult",
    "convert_upload",
    "coordinate_models",
    "count_rows",
    "read_table",
    "sniff_format",
    "suggest_mapping",
    "upload_record",
]

# Limits (documented on the Data page; the numbers and their reasons are in
# curvedtrees.limits). Read from this module's globals so tests can lower them.
MAX_ROWS = MAX_UPLOAD_ROWS
MAX_COLUMNS = MAX_UPLOAD_COLUMNS
MAX_CELLS = MAX_UPLOAD_CELLS
MAX_DECODED_BYTES = MAX_UPLOAD_DECODED_BYTES
# Streamlit's own uploader limit (MB): above ours, so that a file a little over our
# limit reaches read_table and gets our message instead of Streamlit's generic one
# and a lingering chip. Needs server.maxUploadSize at least this in .streamlit/config.toml.
UPLOADER_MB = 2 * MAX_UPLOAD_MB
ACCEPTED_TYPES = ("csv", "tsv", "txt", "npy", "npz")
# Ball coordinates pushed inside by "project onto the manifold" stay this far
# (relative) from the rim, where hyperboloid coordinates would be infinite.
_RIM_MARGIN = 1e-7
# Names that suggest a label column, in order of preference.
_LABEL_NAMES = ("label", "labels", "y", "class", "target", "category", "species")
# Characters of a text file read to guess its separator: enough for dozens of lines.
_SNIFF_CHARS = 65_536
_SNIFF_LINES = 50
_SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}
_DECIMAL_COMMA = re.compile(r"^\s*[+-]?\d+,\d+(?:[eE][+-]?\d+)?\s*$")
_DECIMAL_POINT = re.compile(r"^\s*[+-]?\d*\.\d+(?:[eE][+-]?\d+)?\s*$")
# Longest string (characters) of a label array in a NumPy upload: far above any class name.
_MAX_LABEL_CHARS = 256


class UploadError(ValueError):
    """A file that cannot be read, with the reason in plain words."""


# ----------------------------------------------------------------- reading
def read_table(name: str, data: bytes) -> pd.DataFrame:
    """Parse an uploaded file into a table with at least one column.

    Every size is checked before the data is parsed or decompressed: the file's
    bytes, then the rows and columns a text file holds (counted without parsing)
    or a NumPy file's headers declare, and the declared sizes of an ``.npz``'s
    members.

    Parameters
    ----------
    name : str
        File name; its extension picks the reader (csv, tsv, txt, npy, npz).
    data : bytes

    Returns
    -------
    pandas.DataFrame
        NumPy arrays get columns ``c0, c1, ...`` (an ``.npz`` with arrays ``X``
        and ``y`` gets ``x0, x1, ..., y``). ``table.attrs["hint"]`` says how a text
        file was read when that was guessed (a separator other than the
        extension's, decimal commas), else None.

    Raises
    ------
    UploadError
        Too large, unknown type, unreadable, pickled, empty or too many rows.
    """
    size = len(data)
    if size > MAX_UPLOAD_BYTES:
        raise UploadError(
            f"{name} is {size / 2**20:.1f} MB; the limit is {MAX_UPLOAD_MB} MB "
            "(subsample the rows or keep fewer columns)"
        )
    if size == 0:
        raise UploadError(f"{name} is empty")
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if ext not in ACCEPTED_TYPES:
        raise UploadError(
            f"{name}: unsupported file type {ext or '(none)'!r}; use {', '.join('.' + e for e in ACCEPTED_TYPES)}"
        )
    hint = None
    if ext in ("npy", "npz"):
        table = _read_numpy(name, data, ext)
    else:
        table, hint = _read_text(name, data, ext)
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise UploadError(f"{name} has no data rows")
    if table.shape[0] > MAX_ROWS:
        raise UploadError(f"{name} has {table.shape[0]:,} rows; the limit is {MAX_ROWS:,} (subsample it first)")
    if table.shape[1] > MAX_COLUMNS:
        raise UploadError(f"{name} has {table.shape[1]:,} columns; the limit is {MAX_COLUMNS:,}")
    table.columns = [str(c).strip() for c in table.columns]
    if len(set(table.columns)) != len(table.columns):
        raise UploadError(f"{name} has repeated column names; make every column name unique")
    table = table.reset_index(drop=True)
    table.attrs["hint"] = hint
    return table


@dataclass(frozen=True)
class TextFormat:
    """How a text table is written: its separator and decimal mark, and whether that was guessed.

    Attributes
    ----------
    sep : str
        A single character, or the regular expression of whitespace for columns aligned with spaces.
    decimal : str
        "." or ",".
    hint : str or None
        A sentence for the user when the format differs from what the extension says.
    """

    sep: str
    decimal: str = "."
    hint: str | None = None


def _count_outside_quotes(line: str, sep: str) -> int:
    count, quoted = 0, False
    for char in line:
        if char == '"':
            quoted = not quoted
        elif char == sep and not quoted:
            count += 1
    return count


def sniff_format(text: str, ext: str = "csv") -> TextFormat:
    """Guess the separator and decimal mark of a text table from its first lines.

    A separator is a candidate when every sampled line has the same, non-zero
    number of it outside quotes; the one giving the most columns wins (the
    extension's own separator on a tie). Decimal commas are recognised when the
    separator is not a comma and the data lines hold numbers such as ``1,5`` but
    none such as ``1.5``.

    Parameters
    ----------
    text : str
    ext : {"csv", "tsv", "txt"}

    Returns
    -------
    TextFormat
    """
    default = {"csv": ",", "tsv": "\t"}.get(ext, ",")
    sample = text[:_SNIFF_CHARS]
    lines = sample.splitlines()
    if len(text) > _SNIFF_CHARS and len(lines) > 1:
        lines = lines[:-1]  # the last sampled line may be cut short
    lines = [line for line in lines if line.strip()][:_SNIFF_LINES]
    if not lines:
        return TextFormat(default)
    best, best_columns = None, 1
    for sep in sorted(_SEPARATORS, key=lambda s: s != default):
        counts = {_count_outside_quotes(line, sep) for line in lines}
        if len(counts) == 1 and (columns := counts.pop() + 1) > best_columns:
            best, best_columns = sep, columns
    if best is None:
        widths = {len(line.split()) for line in lines}
        if len(widths) == 1 and widths.pop() > 1:
            return TextFormat(r"\s+", ".", "Read as columns separated by spaces (detected).")
        return TextFormat(default)
    decimal = "."
    if best != ",":
        fields = [f for line in lines[1:] for f in line.split(best)]
        if any(_DECIMAL_COMMA.match(f) for f in fields) and not any(_DECIMAL_POINT.match(f) for f in fields):
            decimal = ","
    if best == default and decimal == ".":
        return TextFormat(best)
    what = f"{_SEPARATORS[best]}-separated values" if best != default else "values"
    hint = f"Read as {what}" + (" with decimal commas" if decimal == "," else "") + " (detected from the first lines)."
    return TextFormat(best, decimal, hint)


# What ends a line for pandas' readers (and the csv module) is \r\n, \r or \n. Not
# str.splitlines, which also breaks at \x0b, \x0c, \x1c-\x1e, \x85, \u2028 and \u2029:
# counting with it would see more, shorter lines than the parser does.
# A line with something besides spaces and tabs on it (the readers skip the others),
# at the start of the text or after any line end.
_FILLED_LINE = re.compile(r"(?:\A|\r\n|\r|\n)[ \t]*[^\s]")
# The text of each line, without its line end.
_LINE_TEXT = re.compile(r"[^\r\n]+")


def count_rows(text: str, fmt: TextFormat) -> int:
    """Data rows of a text table (header and blank lines excluded), without parsing it.

    Counts line ends the way pandas reads them (``\\r\\n``, a lone ``\\r`` or a lone
    ``\\n``: a file with old Mac line endings has as many rows as any other) in C-speed
    passes; blank lines are looked for only when the total could be over a limit, and
    only when the text has quotes (where a field may span lines) are the records read
    with the ``csv`` module, one at a time, with universal newlines as the ``csv``
    module requires.
    """
    if '"' in text and fmt.sep != r"\s+":
        previous = csv.field_size_limit(MAX_CSV_FIELD_CHARS)
        try:
            reader = csv.reader(io.StringIO(text, newline=""), delimiter=fmt.sep)
            records = sum(1 for row in reader if any(f.strip() for f in row))
        finally:
            csv.field_size_limit(previous)
        return max(records - 1, 0)
    ends = text.count("\n") + text.count("\r") - text.count("\r\n")
    lines = ends + (0 if text.endswith(("\n", "\r")) else 1)
    if lines <= MAX_ROWS + 1:
        return max(lines - 1, 0)  # at most the limit whatever the blank lines; pandas counts exactly
    filled = sum(1 for _ in _FILLED_LINE.finditer(text))
    return max(filled - 1, 0)


def _read_text(name: str, data: bytes, ext: str) -> tuple[pd.DataFrame, str | None]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UploadError(f"{name} is not UTF-8 text; save it as a UTF-8 CSV") from None
    if "\x00" in text:
        raise UploadError(f"{name} looks like a binary file, not a CSV/TSV table")
    fmt = sniff_format(text, ext)
    # The header as pandas reads it: the first non-blank line, up to a line end it knows
    # (\r\n, \r or \n; str.splitlines would cut it at a form feed and count fewer columns).
    first = next((m.group() for m in _LINE_TEXT.finditer(text) if m.group().strip()), "")
    n_columns = len(first.split()) if fmt.sep == r"\s+" else _count_outside_quotes(first, fmt.sep) + 1
    if n_columns > MAX_COLUMNS:
        raise UploadError(f"{name} has {n_columns:,} columns; the limit is {MAX_COLUMNS:,}")
    try:
        n_rows = count_rows(text, fmt)
    except csv.Error as exc:
        raise UploadError(f"{name} could not be read as a table: {exc}") from None
    if n_rows > MAX_ROWS:
        raise UploadError(f"{name} has {n_rows:,} rows; the limit is {MAX_ROWS:,} (subsample it first)")
    if n_rows * n_columns > MAX_CELLS:
        raise UploadError(
            f"{name} has {n_rows:,} rows of {n_columns:,} columns ({n_rows * n_columns:,} values); "
            f"the limit is {MAX_CELLS:,} values (keep fewer columns or rows)"
        )
    regex = fmt.sep == r"\s+"
    try:
        table = pd.read_csv(
            io.StringIO(text),
            sep=fmt.sep,
            decimal=fmt.decimal,
            engine="python" if regex else "c",
            nrows=MAX_ROWS + 1,
            skipinitialspace=not regex,
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, csv.Error) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UploadError(f"{name} could not be read as a table: {first}") from None
    return table, fmt.hint


def csv_error():
    """The ``csv`` module's error class (kept for callers of the old helper)."""
    return csv.Error


_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"
_PICKLE_MESSAGE = (
    "contains pickled Python objects, which are never loaded here (they can run code); save plain "
    "numeric arrays with numpy.save / numpy.savez"
)


def _read_numpy(name: str, data: bytes, ext: str) -> pd.DataFrame:
    if data.startswith(_NPY_MAGIC):
        if ext != "npy":
            raise UploadError(f"{name} holds a single array; name it .npy")
        stream = io.BytesIO(data)
        return _arrays_to_table(name, {"": _read_npy(name, "", stream, MAX_CELLS)})
    if data.startswith(_ZIP_MAGIC):
        if ext != "npz":
            raise UploadError(f"{name} is an .npz archive; name it .npz")
        return _arrays_to_table(name, _read_npz(name, data))
    if data.startswith(b"\x80") or data[:1] in (b"(", b"]", b"}"):  # pickle protocols 2-5, and 0-1's openers
        raise UploadError(f"{name} {_PICKLE_MESSAGE}")
    raise UploadError(f"{name} is not a valid NumPy file: it starts with neither a NumPy header nor a zip archive")


def _read_npz(name: str, data: bytes) -> dict:
    """The arrays of an ``.npz``, each member's declared size checked before it is decompressed."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise UploadError(f"{name} is not a valid NumPy file: {exc}") from None
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) > MAX_COLUMNS:
            raise UploadError(f"{name} holds {len(members):,} arrays; the limit is {MAX_COLUMNS:,}")
        # The central directory declares every member's size; zipfile never yields more
        # bytes than that, so this bounds what decompressing can produce.
        declared = sum(info.file_size for info in members)
        if declared > MAX_DECODED_BYTES:
            raise UploadError(
                f"{name} expands to {declared / 2**20:,.0f} MB when decompressed; the limit is "
                f"{MAX_DECODED_BYTES / 2**20:,.0f} MB ({MAX_CELLS:,} numbers); nothing was decompressed"
            )
        arrays, cells = {}, 0
        for info in members:
            if not info.filename.endswith(".npy"):
                raise UploadError(f"{name}: member {info.filename!r} is not a NumPy array (.npy)")
            if info.flag_bits & 0x1:
                raise UploadError(f"{name}: member {info.filename!r} is encrypted")
            key = info.filename[: -len(".npy")]
            try:
                with archive.open(info) as member:
                    array = _read_npy(name, key, member, MAX_CELLS - cells)
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as exc:
                raise UploadError(f"{name}: array {key!r} in the archive is damaged ({exc})") from None
            cells += array.size
            arrays[key] = array
    return arrays


def _read_npy(name: str, key: str, stream, cells_left: int) -> np.ndarray:
    """One ``.npy`` from a stream: header checked, then exactly the bytes it declares read.

    Never unpickles and never allocates more than the header's checked shape.
    """
    fmt = np.lib.format
    try:
        version = fmt.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(stream)
        else:  # 3.0 only adds UTF-8 field names of structured arrays, which are refused anyway
            raise ValueError(f"unsupported .npy format version {version}")
    except (ValueError, EOFError, SyntaxError, TypeError) as exc:
        raise UploadError(f"{name}: array {key!r} has an invalid NumPy header ({exc})") from None
    if dtype.hasobject:
        raise UploadError(f"{name} {_PICKLE_MESSAGE}")
    if dtype.names is not None:
        raise UploadError(f"{name}: structured array {key!r} is not supported; save a plain 2-D array")
    if dtype.kind not in "biuf" and not (dtype.kind in "US" and len(shape) == 1):
        raise UploadError(f"{name}: array {key!r} has type {dtype}; expected numbers (labels may be strings)")
    if len(shape) not in (1, 2):
        raise UploadError(f"{name}: array {key!r} has shape {shape}; expected 1-D or 2-D")
    rows, columns = shape[0], (shape[1] if len(shape) == 2 else 1)
    if rows > MAX_ROWS:
        where = f" (array {key!r})" if key else ""
        raise UploadError(f"{name} has {rows:,} rows{where}; the limit is {MAX_ROWS:,} (subsample it first)")
    if columns > MAX_COLUMNS:
        raise UploadError(f"{name}: array {key!r} has {columns:,} columns; the limit is {MAX_COLUMNS:,}")
    if rows * columns > cells_left:
        raise UploadError(
            f"{name} holds more than {MAX_CELLS:,} values (array {key!r} has {rows * columns:,}); "
            "keep fewer columns or rows"
        )
    if dtype.kind in "US" and dtype.itemsize > _MAX_LABEL_CHARS * (4 if dtype.kind == "U" else 1):
        raise UploadError(
            f"{name}: array {key!r} holds strings of up to {dtype.itemsize} bytes; labels may have "
            f"at most {_MAX_LABEL_CHARS} characters"
        )
    n_bytes = rows * columns * dtype.itemsize
    buffer = stream.read(n_bytes)
    if len(buffer) != n_bytes:
        raise UploadError(f"{name}: array {key!r} is truncated ({len(buffer):,} of {n_bytes:,} bytes)")
    flat = np.frombuffer(buffer, dtype=dtype, count=rows * columns)
    return flat.reshape(shape, order="F" if fortran else "C").copy()


def _arrays_to_table(name: str, arrays: dict) -> pd.DataFrame:
    if not arrays:
        raise UploadError(f"{name} holds no arrays")
    columns: dict[str, np.ndarray] = {}
    n_rows = None
    for key, array in arrays.items():
        if n_rows is None:
            n_rows = array.shape[0]
        elif array.shape[0] != n_rows:
            raise UploadError(
                f"{name}: arrays have different numbers of rows ({n_rows:,} and {array.shape[0]:,} in {key!r})"
            )
        prefix = "c" if key == "" else ("x" if key == "X" else f"{key}_")
        if array.ndim == 2:
            for j in range(array.shape[1]):
                columns[f"{prefix}{j}"] = array[:, j]
        else:
            columns[key or "c0"] = array
    return pd.DataFrame(columns)


# ------------------------------------------------------------ coordinates
def coordinate_models(component) -> list[tuple[str, str, int]]:
    """Ways the coordinates of ``component`` may be given: (key, label, number of columns)."""
    d = component.dim
    if component.kind == "H":
        return [
            ("ambient", f"hyperboloid, x0 first ({d + 1} columns)", d + 1),
            ("poincare", f"Poincaré ball ({d} columns)", d),
            ("klein", f"Klein ball ({d} columns)", d),
        ]
    if component.kind == "S":
        models = [("ambient", f"on the sphere, ambient ({d + 1} columns)", d + 1)]
        if d == 2:
            models.append(("latlon", "latitude, longitude in degrees (2 columns)", 2))
        if d == 1:
            models.append(("angle", "angle in radians (1 column)", 1))
        models.append(("stereographic", f"stereographic from the antipode ({d} columns)", d))
        return models
    return [("ambient", f"plain coordinates ({d} columns)", d)]


def _model_columns(component, model: str) -> int:
    for key, _, n in coordinate_models(component):
        if key == model:
            return n
    raise ValueError(f"{component.name}: unknown coordinate model {model!r}")


def _mostly_numeric(column: pd.Series) -> bool:
    """Numbers, or text that is numbers apart from a few typos (those are reported, not silently skipped)."""
    if pd.api.types.is_numeric_dtype(column):
        return True
    present = column.dropna()
    if present.empty or pd.api.types.is_bool_dtype(column):
        return False
    return pd.to_numeric(present, errors="coerce").notna().mean() >= 0.8


def suggest_mapping(table: pd.DataFrame, signature) -> dict:
    """A first guess of the label column, the task and each component's columns.

    Returns
    -------
    dict
        ``{"label": name or None, "task": "classification" | "regression",
        "components": [{"model": key, "columns": [names]}, ...]}``.
    """
    signature = Signature.parse(signature)
    names = list(table.columns)
    lowered = {n.lower(): n for n in names}
    label = next((lowered[k] for k in _LABEL_NAMES if k in lowered), None)
    numeric = [n for n in names if _mostly_numeric(table[n])]
    if label is None:
        non_numeric = [n for n in names if n not in numeric]
        label = non_numeric[-1] if non_numeric else (names[-1] if len(names) > 1 else None)
    pool = [n for n in numeric if n != label]
    components = []
    for comp in signature.components:
        models = coordinate_models(comp)
        model = models[0][0]
        if comp.kind == "S" and comp.dim == 2 and {"lat", "lon"} <= {p.lower()[:3] for p in pool}:
            model = "latlon"
            lat = next(p for p in pool if p.lower().startswith("lat"))
            lon = next(p for p in pool if p.lower().startswith("lon"))
            cols = [lat, lon]
            pool = [p for p in pool if p not in cols]
        else:
            n = _model_columns(comp, model)
            if len(pool) < n:
                # Not enough columns for ambient coordinates: try the smallest model.
                model, _, n = min(models, key=lambda m: m[2])
            cols, pool = pool[:n], pool[n:]
        components.append({"model": model, "columns": cols})
    task = "classification"
    if label is not None and pd.api.types.is_float_dtype(table[label]):
        values = table[label].dropna()
        if values.nunique() > max(20, 0.05 * len(values)) or not np.allclose(values, np.round(values)):
            task = "regression"
    return {"label": label, "task": task, "components": components}


# -------------------------------------------------------------- reports
@dataclass
class ComponentReport:
    """What is wrong (if anything) with one component's coordinates."""

    name: str
    model: str
    problems: list[str] = field(default_factory=list)
    n_bad: int = 0
    max_error: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class UploadResult:
    """Ambient coordinates and labels built from a table, with the reasons rows are not usable.

    Attributes
    ----------
    X : ndarray of float64, shape (n_rows, ambient_dim)
        NaN where a row could not be converted.
    y : ndarray, shape (n_rows,)
    rows : ndarray of int, shape (n_rows,)
        Row numbers in the uploaded table (after dropped rows are removed).
    bad : ndarray of bool, shape (n_rows,)
        Rows with any problem.
    reports : list of ComponentReport
    label_problems : list of str
    general : list of str
        Problems of the whole table (too few rows, a single class, ...).
    n_dropped : int
    """

    X: np.ndarray
    y: np.ndarray
    rows: np.ndarray
    bad: np.ndarray
    reports: list
    label_problems: list
    general: list
    n_dropped: int = 0
    n_projected: int = 0

    @property
    def ok(self) -> bool:
        return not self.general and not self.label_problems and all(r.ok for r in self.reports)

    @property
    def fixable_by_projection(self) -> bool:
        """Whether "project onto the manifold" would remove a problem (off-manifold or out-of-range rows)."""
        return any(r.max_error > 0 for r in self.reports)


def _n_rows(n: int) -> str:
    return _plural(n, "row")


def _format_rows(rows: np.ndarray, limit: int = 6) -> str:
    """``"row 4"`` or ``"rows 3, 7, ..."``."""
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    return ("row " if len(rows) == 1 else "rows ") + shown + (", ..." if len(rows) > limit else "")


def _relative_error(component, block: np.ndarray) -> np.ndarray:
    """Per-row distance from the manifold relative to the point's size (NaN rows -> NaN)."""
    R = component.radius
    if component.kind == "S":
        return np.abs(np.linalg.norm(block, axis=1) - R) / R
    if component.kind == "H":
        spatial = np.linalg.norm(block[:, 1:], axis=1)
        target = np.sqrt(R * R + spatial**2)
        err = np.abs(block[:, 0] - target) / target
        # The lower sheet (x0 < 0) is not part of the model, however close the norm.
        return np.where(block[:, 0] > 0, err, np.maximum(err, 1.0))
    return np.zeros(len(block))


def _numeric(table: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, list[str]]:
    problems = []
    out = np.empty((len(table), len(columns)))
    for k, name in enumerate(columns):
        raw = table[name]
        values = pd.to_numeric(raw, errors="coerce")
        text_bad = values.isna() & raw.notna()
        if text_bad.any():
            where = np.flatnonzero(text_bad.to_numpy())
            problems.append(
                f"column {name!r} has {_plural(len(where), 'non-numeric entry', 'non-numeric entries')} "
                f"({_format_rows(where)}), "
                f"such as {str(raw.iloc[where[0]])!r}"
            )
        out[:, k] = values.to_numpy(dtype=np.float64)
    return out, problems


def _convert_component(component, model: str, values: np.ndarray, project: bool):
    """(ambient block with NaN rows, relative errors, problem sentences, projected count)."""
    n = len(values)
    R = component.radius
    finite = np.isfinite(values).all(axis=1)
    block = np.full((n, component.ambient_dim), np.nan)
    problems: list[str] = []
    error = np.zeros(n)
    projected = 0
    manifold = manifold_for(component)
    if model == "ambient":
        block[finite] = values[finite]
        if component.kind != "E" and finite.any():
            err = _relative_error(component, block[finite])
            off = err > CHECK_RTOL
            if project and off.any():
                fixed = manifold.projx(block[finite][off])
                ok = np.isfinite(fixed).all(axis=1) & (np.linalg.norm(fixed, axis=1) > 0)
                idx = np.flatnonzero(finite)[np.flatnonzero(off)]
                block[idx[ok]] = fixed[ok]
                block[idx[~ok]] = np.nan
                projected = int(ok.sum())
                err = np.where(
                    np.isfinite(block[finite]).all(axis=1),
                    _relative_error(component, np.nan_to_num(block[finite])),
                    np.inf,
                )
                off = err > CHECK_RTOL
            error[finite] = err
    elif model in ("poincare", "klein"):
        norms = np.where(finite, np.linalg.norm(np.where(finite[:, None], values, 0.0), axis=1), 0.0)
        outside = finite & (norms >= R)
        if project and outside.any():
            values = values.copy()
            values[outside] *= (R * (1 - _RIM_MARGIN) / norms[outside])[:, None]
            projected = int(outside.sum())
            outside[:] = False
        good = finite & ~outside
        convert = coords.poincare_to_hyperboloid if model == "poincare" else coords.klein_to_hyperboloid
        if good.any():
            block[good] = convert(values[good], curvature=component.curvature)
        if outside.any():
            rows = np.flatnonzero(outside)
            ball = "Poincaré" if model == "poincare" else "Klein"
            problems.append(
                f"{_n_rows(len(rows))} outside the {ball} ball of radius {R:g} ({_format_rows(rows)}, "
                f"largest norm {norms[outside].max():.4g})"
            )
            error[outside] = norms[outside] / R - 1 + CHECK_RTOL * 2
    elif model == "latlon":
        lat = values[:, 0]
        beyond = finite & (np.abs(np.where(finite, lat, 0.0)) > 90)
        if project and beyond.any():
            values = values.copy()
            values[beyond, 0] = np.clip(values[beyond, 0], -90, 90)
            projected = int(beyond.sum())
            beyond[:] = False
        good = finite & ~beyond
        if good.any():
            block[good] = coords.latlon_to_sphere(values[good], curvature=component.curvature)
        if beyond.any():
            rows = np.flatnonzero(beyond)
            problems.append(f"{_n_rows(len(rows))} with a latitude beyond ±90 degrees ({_format_rows(rows)})")
            error[beyond] = 1.0
    elif model == "angle":
        if finite.any():
            block[finite] = coords.angle_to_circle(values[finite, 0], curvature=component.curvature)
    elif model == "stereographic":
        if finite.any():
            block[finite] = coords.stereographic_to_sphere(values[finite], curvature=component.curvature)
    else:
        raise ValueError(f"{component.name}: unknown coordinate model {model!r}")
    if not finite.all():
        rows = np.flatnonzero(~finite)
        problems.insert(0, f"{_n_rows(len(rows))} with a missing, NaN or infinite coordinate ({_format_rows(rows)})")
    if model == "ambient" and component.kind != "E":
        off_rows = np.flatnonzero(finite & (error > CHECK_RTOL))
        if len(off_rows):
            where = "off the sphere" if component.kind == "S" else "off the hyperboloid"
            lower = np.flatnonzero(finite & (np.nan_to_num(block[:, 0], nan=1.0) <= 0)) if component.kind == "H" else []
            detail = f" ({len(lower)} on the lower sheet, x0 <= 0)" if len(lower) else ""
            problems.append(
                f"{_n_rows(len(off_rows))} {where}{detail}, largest relative error "
                f"{np.max(error[off_rows]):.3g} ({_format_rows(off_rows)})"
            )
    return block, error, problems, projected


def convert_upload(
    table: pd.DataFrame, signature, mapping: dict, project: bool = False, drop_bad: bool = False
) -> UploadResult:
    """Build ambient coordinates and labels from a table and explain what is wrong.

    Parameters
    ----------
    table : pandas.DataFrame
    signature : str or Signature
    mapping : dict
        As returned by :func:`suggest_mapping` (possibly edited).
    project : bool
        Move off-manifold rows onto the manifold (``projx``; ball coordinates
        pulled inside the ball; latitudes clipped to ±90) instead of reporting them.
    drop_bad : bool
        Leave out every row that still has a problem.

    Returns
    -------
    UploadResult

    Raises
    ------
    ValueError
        If the mapping itself is inconsistent (unknown or repeated columns, wrong
        number of columns for a coordinate model).
    """
    signature = Signature.parse(signature)
    comps = mapping.get("components") or []
    if len(comps) != len(signature.components):
        raise ValueError(
            f"{signature} has {_plural(len(signature.components), 'component')}; the mapping describes {len(comps)}"
        )
    label = mapping.get("label")
    task = mapping.get("task", "classification")
    used: list[str] = []
    for comp, spec in zip(signature.components, comps):
        need = _model_columns(comp, spec.get("model"))
        cols = list(spec.get("columns") or [])
        if len(cols) != need:
            chosen = "none is" if not cols else ("1 is" if len(cols) == 1 else f"{len(cols)} are")
            raise ValueError(
                f"{comp.name} (component {comp.index + 1}) in the chosen model needs "
                f"{_plural(need, 'column')}; {chosen} selected"
            )
        missing = [c for c in cols if c not in table.columns]
        if missing:
            raise ValueError(f"column {missing[0]!r} is not in the file")
        used += cols
    if label is not None and label not in table.columns:
        raise ValueError(f"label column {label!r} is not in the file")
    repeated = sorted({c for c in used if used.count(c) > 1} | ({label} if label in used else set()))
    if repeated:
        raise ValueError(f"column {repeated[0]!r} is used twice; each column can play one role")

    n = len(table)
    blocks, reports, bad = [], [], np.zeros(n, dtype=bool)
    n_projected = 0
    for comp, spec in zip(signature.components, comps):
        values, problems = _numeric(table, list(spec["columns"]))
        block, error, more, projected = _convert_component(comp, spec["model"], values, project)
        n_projected += projected
        row_bad = ~np.isfinite(block).all(axis=1) | (error > CHECK_RTOL)
        bad |= row_bad
        label_name = f"{comp}" + (f" (component {comp.index + 1})" if len(signature.components) > 1 else "")
        finite_err = error[np.isfinite(error) & (error > CHECK_RTOL)]
        reports.append(
            ComponentReport(
                label_name,
                spec["model"],
                problems + more,
                int(row_bad.sum()),
                float(finite_err.max()) if finite_err.size else 0.0,
            )
        )
        blocks.append(block)
    X = np.hstack(blocks) if blocks else np.empty((n, 0))

    label_problems: list[str] = []
    if label is None:
        y = np.zeros(n)
        label_problems.append("no label column is selected: choose the column to predict")
    else:
        raw = table[label]
        if task == "regression":
            y_num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
            not_num = ~np.isfinite(y_num)
            if not_num.any():
                rows = np.flatnonzero(not_num)
                label_problems.append(
                    f"{_n_rows(len(rows))} whose label is missing or not a number ({_format_rows(rows)})"
                )
            bad |= not_num
            y = y_num
        else:
            missing = raw.isna().to_numpy()
            if missing.any():
                rows = np.flatnonzero(missing)
                label_problems.append(f"{_n_rows(len(rows))} without a label ({_format_rows(rows)})")
            bad |= missing
            y = _tidy_labels(raw)

    rows = np.arange(n)
    n_dropped = 0
    if drop_bad and bad.any():
        keep = ~bad
        n_dropped = int(bad.sum())
        X, y, rows, bad = X[keep], y[keep], rows[keep], bad[keep]
        for report in reports:
            report.problems = []
            report.n_bad = 0
            report.max_error = 0.0
        label_problems = [p for p in label_problems if p.startswith("no label")]

    general: list[str] = []
    if len(X) < 10:
        general.append(f"only {_plural(len(X), 'usable row')}; at least 10 are needed to train and test a model")
    elif label is not None and task == "classification" and not label_problems:
        classes = np.unique(y[~bad])
        if len(classes) < 2:
            general.append("the label column has a single class; a classifier needs at least two")
        elif len(classes) > max(50, len(X) // 2):
            general.append(
                f"the label column has {len(classes)} different values: is it a regression target? "
                "Switch the task to regression"
            )
    if not general and not label_problems and all(not r.problems for r in reports) and len(X):
        try:
            ProductManifold(signature).validate(X, name="the uploaded points")
        except ValueError as exc:  # the reports should have caught it; never hide the engine's verdict
            general.append(str(exc))
    return UploadResult(X, y, rows, bad, reports, label_problems, general, n_dropped, n_projected)


def _tidy_labels(raw: pd.Series) -> np.ndarray:
    """Class labels as integers when they are whole numbers, else as strings."""
    values = raw.to_numpy()
    if pd.api.types.is_numeric_dtype(raw):
        finite = raw.dropna().to_numpy(dtype=np.float64)
        # int64 holds whole numbers below 2**63 only: 1e19 would wrap to -2**63 and merge every class;
        # an exact test, since np.allclose also counted 1.0000001 as whole.
        if (
            len(finite)
            and np.all(np.isfinite(finite))
            and np.all(finite == np.trunc(finite))
            and np.all(np.abs(finite) < 2.0**63)
        ):
            return np.where(raw.isna(), -1, raw.fillna(-1)).astype(np.int64)
        return values.astype(np.float64)
    return np.array(
        ["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in values], dtype=object
    ).astype(str)


def upload_record(result: UploadResult, signature, task: str, file_name: str, mapping: dict):
    """The ``DataRecord`` of an upload that passed every check."""
    from curvedtrees.datasets import Dataset

    from ui.data import make_record

    if not result.ok:
        raise ValueError("the upload still has problems; fix them before using it")
    signature = Signature.parse(signature)
    dataset = Dataset(
        X=result.X,
        y=result.y,
        signature=signature,
        task=task,
        name=file_name,
        description=f"Uploaded file {file_name}: {_plural(len(result.X), 'row')} on {signature}"
        + (f" ({_plural(result.n_dropped, 'row')} dropped)" if result.n_dropped else "")
        + (f" ({_plural(result.n_projected, 'row')} projected onto the manifold)" if result.n_projected else "")
        + ".",
        provenance="Uploaded by you; it stays with this browser tab (a reload keeps it).",
        # Components given as latitude/longitude are places on the Earth: drawn as the globe.
        globe=tuple(i for i, spec in enumerate(mapping.get("components") or []) if spec.get("model") == "latlon"),
    )
    recipe = {"source": "upload", "file": file_name, "signature": str(signature), "task": task, "title": file_name}
    return make_record(dataset, recipe)
