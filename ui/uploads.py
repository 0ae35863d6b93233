"""Reading an uploaded table, mapping its columns onto a signature, and explaining problems.

Pure module (no Streamlit). Files are untrusted: only CSV / TSV text and NumPy
``.npy`` / ``.npz`` files are read, NumPy files with ``allow_pickle=False`` (a
pickle renamed to ``.npy`` is refused, never executed), and size, row and
column counts are capped before anything is converted.

Each component's coordinates may be given in the model that is natural for it
(ambient hyperboloid or sphere coordinates, the Poincare or Klein ball,
latitude and longitude in degrees, an angle in radians, stereographic
coordinates); :func:`convert_upload` turns them into ambient coordinates with
``curvedtrees.coords`` and writes a per-component report ("S2: 12 rows off the sphere,
largest relative error 0.31 (rows 3, 5, 8, ...)").
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from curvedtrees import coords
from curvedtrees.manifolds import CHECK_RTOL, ProductManifold, Signature, manifold_for

__all__ = [
    "ACCEPTED_TYPES",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_UPLOAD_BYTES",
    "MAX_UPLOAD_MB",
    "ComponentReport",
    "UploadError",
    "UploadResult",
    "convert_upload",
    "coordinate_models",
    "read_table",
    "suggest_mapping",
    "upload_record",
]

# Limits (documented on the Data page). The server refuses bodies above
# server.maxUploadSize (.streamlit/config.toml, same number); the check here also
# covers callers that bypass the browser.
MAX_UPLOAD_MB = 25
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024
MAX_ROWS = 50_000
MAX_COLUMNS = 500
ACCEPTED_TYPES = ("csv", "tsv", "txt", "npy", "npz")
# Ball coordinates pushed inside by "project onto the manifold" stay this far
# (relative) from the rim, where hyperboloid coordinates would be infinite.
_RIM_MARGIN = 1e-7
# Names that suggest a label column, in order of preference.
_LABEL_NAMES = ("label", "labels", "y", "class", "target", "category", "species")


class UploadError(ValueError):
    """A file that cannot be read, with the reason in plain words."""


# ----------------------------------------------------------------- reading
def read_table(name: str, data: bytes) -> pd.DataFrame:
    """Parse an uploaded file into a table with at least one column.

    Parameters
    ----------
    name : str
        File name; its extension picks the reader (csv, tsv, txt, npy, npz).
    data : bytes

    Returns
    -------
    pandas.DataFrame
        NumPy arrays get columns ``c0, c1, ...`` (an ``.npz`` with arrays ``X``
        and ``y`` gets ``x0, x1, ..., y``).

    Raises
    ------
    UploadError
        Too large, unknown type, unreadable, pickled, empty or too many rows.
    """
    size = len(data)
    if size > MAX_UPLOAD_BYTES:
        raise UploadError(f"{name} is {size / 2**20:.1f} MB; the limit is {MAX_UPLOAD_MB} MB "
                          "(subsample the rows or keep fewer columns)")
    if size == 0:
        raise UploadError(f"{name} is empty")
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if ext not in ACCEPTED_TYPES:
        raise UploadError(f"{name}: unsupported file type {ext or '(none)'!r}; use "
                          f"{', '.join('.' + e for e in ACCEPTED_TYPES)}")
    if ext in ("npy", "npz"):
        table = _read_numpy(name, data, ext)
    else:
        table = _read_text(name, data, ext)
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise UploadError(f"{name} has no data rows")
    if table.shape[0] > MAX_ROWS:
        raise UploadError(f"{name} has {table.shape[0]:,} rows; the limit is {MAX_ROWS:,} (subsample it first)")
    if table.shape[1] > MAX_COLUMNS:
        raise UploadError(f"{name} has {table.shape[1]} columns; the limit is {MAX_COLUMNS}")
    table.columns = [str(c).strip() for c in table.columns]
    if len(set(table.columns)) != len(table.columns):
        raise UploadError(f"{name} has repeated column names; make every column name unique")
    return table.reset_index(drop=True)


def _read_text(name: str, data: bytes, ext: str) -> pd.DataFrame:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UploadError(f"{name} is not UTF-8 text; save it as a UTF-8 CSV") from None
    if "\x00" in text:
        raise UploadError(f"{name} looks like a binary file, not a CSV/TSV table")
    sep = {"csv": ",", "tsv": "\t"}.get(ext)
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, engine="python" if sep is None else "c",
                           nrows=MAX_ROWS + 1, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, csv_error()) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UploadError(f"{name} could not be read as a table: {first}") from None


def csv_error():
    import csv

    return csv.Error


def _read_numpy(name: str, data: bytes, ext: str) -> pd.DataFrame:
    try:
        loaded = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower():
            raise UploadError(f"{name} contains pickled Python objects, which are never loaded here (they can run "
                              "code); save plain numeric arrays with numpy.save / numpy.savez") from None
        raise UploadError(f"{name} is not a valid NumPy file: {exc}") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise UploadError(f"{name} is not a valid NumPy file: {exc}") from None
    if isinstance(loaded, np.lib.npyio.NpzFile):
        with loaded:
            try:
                arrays = {key: loaded[key] for key in loaded.files}
            except ValueError as exc:
                raise UploadError(f"{name}: an array could not be read without pickle ({exc})") from None
            except (OSError, EOFError, zipfile.BadZipFile) as exc:
                raise UploadError(f"{name}: an array in the archive is damaged ({exc})") from None
        odd = [key for key, value in arrays.items() if not isinstance(value, np.ndarray)]
        if odd:
            raise UploadError(f"{name}: member {odd[0]!r} is not a NumPy array")
        if ext != "npz":
            raise UploadError(f"{name} is an .npz archive; name it .npz")
        return _arrays_to_table(name, arrays)
    if ext != "npy":
        raise UploadError(f"{name} holds a single array; name it .npy")
    return _arrays_to_table(name, {"": loaded})


def _arrays_to_table(name: str, arrays: dict) -> pd.DataFrame:
    if not arrays:
        raise UploadError(f"{name} holds no arrays")
    columns: dict[str, np.ndarray] = {}
    n_rows = None
    for key, array in arrays.items():
        if array.dtype.names is not None:
            raise UploadError(f"{name}: structured array {key or '(main)'!r} is not supported; save a plain 2-D "
                              "array")
        if array.dtype.kind not in "biuf" and not (array.dtype.kind in "US" and array.ndim == 1):
            raise UploadError(f"{name}: array {key or '(main)'!r} has type {array.dtype}; expected numbers "
                              "(labels may be strings)")
        if array.ndim == 0 or array.ndim > 2:
            raise UploadError(f"{name}: array {key or '(main)'!r} has shape {array.shape}; expected 1-D or 2-D")
        if n_rows is None:
            n_rows = array.shape[0]
        elif array.shape[0] != n_rows:
            raise UploadError(f"{name}: arrays have different numbers of rows ({n_rows} and {array.shape[0]} in "
                              f"{key!r})")
        if array.ndim == 2 and array.shape[1] > MAX_COLUMNS:
            raise UploadError(f"{name}: array {key or '(main)'!r} has {array.shape[1]} columns; the limit is "
                              f"{MAX_COLUMNS}")
        if n_rows > MAX_ROWS:
            raise UploadError(f"{name} has {n_rows:,} rows; the limit is {MAX_ROWS:,} (subsample it first)")
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
        return [("ambient", f"hyperboloid, x0 first ({d + 1} columns)", d + 1),
                ("poincare", f"Poincaré ball ({d} columns)", d),
                ("klein", f"Klein ball ({d} columns)", d)]
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
    return f"{n} row" if n == 1 else f"{n} rows"


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
            problems.append(f"column {name!r} has {len(where)} non-numeric entries ({_format_rows(where)}), "
                            f"such as {str(raw.iloc[where[0]])!r}")
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
                err = np.where(np.isfinite(block[finite]).all(axis=1), _relative_error(component, np.nan_to_num(
                    block[finite])), np.inf)
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
            problems.append(f"{_n_rows(len(rows))} outside the {ball} ball of radius {R:g} ({_format_rows(rows)}, "
                            f"largest norm {norms[outside].max():.4g})")
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
            lower = np.flatnonzero(finite & (np.nan_to_num(block[:, 0], nan=1.0) <= 0)) if component.kind == "H" \
                else []
            detail = f" ({len(lower)} on the lower sheet, x0 <= 0)" if len(lower) else ""
            problems.append(f"{_n_rows(len(off_rows))} {where}{detail}, largest relative error "
                            f"{np.max(error[off_rows]):.3g} ({_format_rows(off_rows)})")
    return block, error, problems, projected


def convert_upload(table: pd.DataFrame, signature, mapping: dict, project: bool = False,
                   drop_bad: bool = False) -> UploadResult:
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
        raise ValueError(f"{signature} has {len(signature.components)} components; the mapping describes "
                         f"{len(comps)}")
    label = mapping.get("label")
    task = mapping.get("task", "classification")
    used: list[str] = []
    for comp, spec in zip(signature.components, comps):
        need = _model_columns(comp, spec.get("model"))
        cols = list(spec.get("columns") or [])
        if len(cols) != need:
            raise ValueError(f"{comp.name} (component {comp.index + 1}) in the chosen model needs {need} columns; "
                             f"{len(cols)} are selected")
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
        reports.append(ComponentReport(label_name, spec["model"], problems + more, int(row_bad.sum()),
                                       float(finite_err.max()) if finite_err.size else 0.0))
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
                label_problems.append(f"{_n_rows(len(rows))} whose label is missing or not a number "
                                      f"({_format_rows(rows)})")
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
        general.append(f"only {len(X)} usable rows; at least 10 are needed to train and test a model")
    elif label is not None and task == "classification" and not label_problems:
        classes = np.unique(y[~bad])
        if len(classes) < 2:
            general.append("the label column has a single class; a classifier needs at least two")
        elif len(classes) > max(50, len(X) // 2):
            general.append(f"the label column has {len(classes)} different values: is it a regression target? "
                           "Switch the task to regression")
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
        finite = raw.dropna()
        if len(finite) and np.allclose(finite, np.round(finite)):
            return np.where(raw.isna(), -1, raw.fillna(-1)).astype(np.int64)
        return values.astype(np.float64)
    return np.array(["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in values],
                    dtype=object).astype(str)


def upload_record(result: UploadResult, signature, task: str, file_name: str, mapping: dict):
    """The ``DataRecord`` of an upload that passed every check."""
    from curvedtrees.datasets import Dataset

    from ui.data import make_record

    if not result.ok:
        raise ValueError("the upload still has problems; fix them before using it")
    signature = Signature.parse(signature)
    dataset = Dataset(
        X=result.X, y=result.y, signature=signature, task=task, name=file_name,
        description=f"Uploaded file {file_name}: {len(result.X)} rows on {signature}"
                    + (f" ({result.n_dropped} rows dropped)" if result.n_dropped else "")
                    + (f" ({result.n_projected} rows projected onto the manifold)" if result.n_projected else "")
                    + ".",
        provenance="Uploaded by you; it stays in this browser session.",
    )
    recipe = {"source": "upload", "file": file_name, "signature": str(signature), "task": task,
              "title": file_name}
    return make_record(dataset, recipe)
