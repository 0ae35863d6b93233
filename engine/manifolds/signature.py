"""Signatures: which constant-curvature components make up a product manifold.

A signature is written the way papers write it, ``"H2 x S2 x E2"``, with optional
curvatures in parentheses (``"H2(-0.5) x S1(2) x E3"``), powers
(``"(S1)^5 x E1"``) and any spacing or case (``"s2xs1"``). It can also be given
as a manify-style list of ``(curvature, dim)`` pairs, where the sign of the
curvature picks the kind (negative: H, zero: E, positive: S).

Every component is embedded in an ambient space one dimension larger than the
manifold (``ambient_dim = dim + 1``) except Euclidean components, which use
their own coordinates (``ambient_dim = dim``). The ambient vector of a product
point is the concatenation of its components' ambient vectors, in signature
order; ``Component.slice`` locates a component inside it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..limits import MAX_AMBIENT_DIM, MAX_SIGNATURE_CHARS, MAX_SIGNATURE_COMPONENTS

__all__ = ["Component", "Signature"]

_KINDS = ("H", "S", "E")
_DEFAULT_CURVATURE = {"H": -1.0, "S": 1.0, "E": 0.0}

# One factor: a kind letter, a dimension and an optional curvature in parentheses.
_FACTOR_RE = re.compile(
    r"""^(?P<kind>[HSE])(?P<dim>\d+)
        (?:\((?P<curv>[+-]?(?:\d+\.?\d*|\.\d+)(?:E[+-]?\d+)?)\))?$""",
    re.VERBOSE,
)
# Digits of a dimension or a power. The limits are at most 4 digits, so a longer
# number is refused from its text, before int() (whose cost grows with the digits).
_MAX_DIGITS = len(str(max(MAX_AMBIENT_DIM, MAX_SIGNATURE_COMPONENTS)))
# A power of one factor: "(S1)^5" or "S1^5".
_POWER_RE = re.compile(
    r"^\((?P<base>[^()]*(?:\([^()]*\))?)\)\^(?P<exp>\d+)$"  # (S1)^5, (S1(2))^3
    r"|^(?P<bare>[^()^]+(?:\([^()]*\))?)\^(?P<exp2>\d+)$"  # S1^5
)


def _format_number(value: float) -> str:
    """Shortest decimal text that parses back to exactly ``value``."""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _clip(text: str, limit: int = 60) -> str:
    """``text`` shortened for a message (a hostile signature can be long)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _too_many_components(count: int, where: str) -> str:
    return (
        f"{where} has {count:,} components; the limit is {MAX_SIGNATURE_COMPONENTS} "
        "(curvedtrees.limits.MAX_SIGNATURE_COMPONENTS)"
    )


def _too_wide(ambient: int, where: str) -> str:
    return (
        f"{where} needs {ambient:,} ambient coordinates per row; the limit is {MAX_AMBIENT_DIM:,} "
        "(curvedtrees.limits.MAX_AMBIENT_DIM)"
    )


@dataclass(frozen=True)
class Component:
    """One factor of a product manifold.

    Parameters
    ----------
    kind : {"H", "S", "E"}
        Hyperbolic (hyperboloid model), spherical or Euclidean.
    dim : int
        Intrinsic dimension (at least 1).
    curvature : float
        Sectional curvature: negative for H, positive for S, zero for E.
    index : int
        Position of the component in its signature.
    start : int
        Offset of the component's first ambient coordinate in the product's
        ambient vector.
    """

    kind: str
    dim: int
    curvature: float
    index: int = 0
    start: int = 0
    name: str = field(init=False, compare=False)

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"component kind must be one of H, S, E, got {self.kind!r}")
        if int(self.dim) != self.dim or self.dim < 1:
            raise ValueError(f"component dimension must be a positive integer, got {self.dim!r}")
        curvature = float(self.curvature)
        if not math.isfinite(curvature):
            raise ValueError(f"curvature of {self.kind}{self.dim} must be finite, got {curvature}")
        if self.kind == "H" and not curvature < 0:
            raise ValueError(f"hyperbolic component H{self.dim} needs a negative curvature, got {curvature}")
        if self.kind == "S" and not curvature > 0:
            raise ValueError(f"spherical component S{self.dim} needs a positive curvature, got {curvature}")
        if self.kind == "E" and curvature != 0:
            raise ValueError(f"Euclidean component E{self.dim} has curvature 0, got {curvature}")
        object.__setattr__(self, "dim", int(self.dim))
        object.__setattr__(self, "curvature", curvature)
        object.__setattr__(self, "name", f"{self.kind}{self.dim}")

    @property
    def ambient_dim(self) -> int:
        """Number of ambient coordinates: ``dim + 1`` for H and S, ``dim`` for E."""
        return self.dim if self.kind == "E" else self.dim + 1

    @property
    def slice(self) -> slice:
        """Location of this component's coordinates in the product's ambient vector."""
        return slice(self.start, self.start + self.ambient_dim)

    @property
    def radius(self) -> float:
        """``1 / sqrt(|K|)`` for H and S; ``inf`` for E (no intrinsic length scale)."""
        return math.inf if self.kind == "E" else 1.0 / math.sqrt(abs(self.curvature))

    def __str__(self) -> str:
        if self.curvature == _DEFAULT_CURVATURE[self.kind]:
            return self.name
        return f"{self.name}({_format_number(self.curvature)})"


class Signature:
    """An ordered list of components: the shape of a product manifold.

    Build one with :meth:`parse` (strings, lists of ``(curvature, dim)``, or an
    existing signature). Signatures are immutable, hashable and compare equal
    when their components (kind, dim, curvature) agree; ``str()`` is canonical
    and parses back to an equal signature.

    Examples
    --------
    >>> sig = Signature.parse("H2 x S2(0.5) x E2")
    >>> [c.ambient_dim for c in sig.components], sig.dim, sig.ambient_dim
    ([3, 3, 2], 6, 8)
    >>> str(Signature.parse("(s1)^2xE1"))
    'S1 x S1 x E1'
    """

    __slots__ = ("_components",)

    def __init__(self, components: Iterable[tuple[str, int, float]]):
        built = []
        start = 0
        for index, (kind, dim, curvature) in enumerate(components):
            # Checked before each component is built, so an endless iterable stops at the limit.
            if index >= MAX_SIGNATURE_COMPONENTS:
                raise ValueError(_too_many_components(MAX_SIGNATURE_COMPONENTS + 1, "this signature (at least)"))
            if isinstance(dim, int) and dim > MAX_AMBIENT_DIM:
                raise ValueError(_too_wide(start + dim, f"component {index + 1} ({kind}{dim})"))
            component = Component(kind, dim, curvature, index=index, start=start)
            built.append(component)
            start += component.ambient_dim
            if start > MAX_AMBIENT_DIM:
                raise ValueError(_too_wide(start, f"component {index + 1} ({component.name})"))
        if not built:
            raise ValueError("a signature needs at least one component")
        self._components = tuple(built)

    # ------------------------------------------------------------------ parsing
    @classmethod
    def parse(cls, spec) -> Signature:
        """Build a signature from a string, a list of ``(curvature, dim)`` or a signature.

        Parameters
        ----------
        spec : str, Signature or sequence of (float, int)
            ``"H2 x S2 x E2"``, ``"H2(-0.5) x S1(2) x E3"``, ``"(S1)^5 x E1"``,
            ``"S2xS1"``; or ``[(-1.0, 2), (1.0, 2), (0.0, 2)]``.

        Raises
        ------
        ValueError
            For a malformed string (the message names the bad token and what was
            expected) or an invalid component (non-positive dimension, curvature
            of the wrong sign).
        """
        if isinstance(spec, Signature):
            return spec
        if isinstance(spec, str):
            return cls(cls._parse_string(spec))
        if isinstance(spec, Sequence) and not isinstance(spec, (bytes, bytearray)):
            return cls(cls._parse_pairs(spec))
        raise TypeError(
            f"a signature must be a string such as 'H2 x S2 x E2', a Signature or a list of "
            f"(curvature, dim) pairs, got {type(spec).__name__}"
        )

    @staticmethod
    def _parse_pairs(pairs) -> list[tuple[str, int, float]]:
        if len(pairs) > MAX_SIGNATURE_COMPONENTS:
            raise ValueError(_too_many_components(len(pairs), "the list of (curvature, dim) pairs"))
        parsed = []
        for position, pair in enumerate(pairs, start=1):
            try:
                curvature, dim = pair
                curvature = float(curvature)
            except (TypeError, ValueError):
                raise ValueError(
                    f"signature entry {position} is {pair!r}: expected a (curvature, dim) pair such as (-1.0, 2)"
                ) from None
            if isinstance(dim, float) and dim.is_integer():
                dim = int(dim)
            if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
                raise ValueError(f"signature entry {position} is {pair!r}: the dimension must be a positive integer")
            if dim > MAX_AMBIENT_DIM:
                raise ValueError(_too_wide(dim, f"signature entry {position}"))
            kind = "H" if curvature < 0 else ("S" if curvature > 0 else "E")
            parsed.append((kind, dim, curvature))
        return parsed

    @staticmethod
    def _parse_string(text: str) -> list[tuple[str, int, float]]:
        if len(text) > MAX_SIGNATURE_CHARS:
            raise ValueError(
                f"signature too long: {len(text):,} characters; the limit is {MAX_SIGNATURE_CHARS:,} "
                f"(at most {MAX_SIGNATURE_COMPONENTS} components, such as '(S1)^8 x E2')"
            )
        # Match on an upper-cased copy without spaces; report tokens as the user wrote them, and
        # where: ``columns[i]`` is the 1-based character position in ``text`` of compact[i].
        columns = [i + 1 for i, char in enumerate(text) if not char.isspace()]
        original = "".join(text[i - 1] for i in columns).replace("×", "x")
        compact = original.upper()
        if not compact:
            raise ValueError("empty signature: expected factors such as 'H2 x S2 x E2'")
        # Split on the product sign "x" outside parentheses. Curvatures never contain an X
        # (only digits, sign, dot and an exponent E), so a plain scan is enough.
        tokens, spans, starts, depth, begin = [], [], [], 0, 0
        for position, char in enumerate(compact):
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            if char == "X" and depth == 0:
                tokens.append(compact[begin:position])
                spans.append(original[begin:position])
                starts.append(begin)
                begin = position + 1
        tokens.append(compact[begin:])
        spans.append(original[begin:])
        starts.append(begin)

        parsed: list[tuple[str, int, float]] = []
        ambient = 0
        for token, as_written, begin in zip(tokens, spans, starts):
            where = f"at character {columns[min(begin, len(columns) - 1)]}"
            if not token:
                raise ValueError(
                    f"malformed signature {text!r}: an empty factor next to 'x' ({where}); expected factors such as "
                    "'H2', 'S1(2)' or '(S1)^3' joined by 'x'"
                )
            repeat = 1
            power = _POWER_RE.match(token)
            if power:
                base = power.group("base") if power.group("base") is not None else power.group("bare")
                exponent = power.group("exp") or power.group("exp2")
                # Refuse a power from its digits, before int() and long before expanding it.
                if len(exponent.lstrip("0")) > _MAX_DIGITS or int(exponent) > MAX_SIGNATURE_COMPONENTS:
                    raise ValueError(
                        f"signature {_clip(text)!r}: the power in {_clip(as_written)!r} ({where}) asks for more "
                        f"than {MAX_SIGNATURE_COMPONENTS} components, the limit of a signature"
                    )
                repeat = int(exponent)
                if repeat < 1:
                    raise ValueError(
                        f"malformed signature {text!r}: power in {as_written!r} ({where}) must be at least 1"
                    )
                token = base
            match = _FACTOR_RE.match(token)
            if not match:
                raise ValueError(
                    f"malformed signature {_clip(text)!r}: cannot read the factor {_clip(as_written)!r} ({where}); "
                    "expected a kind H, S or E, a positive dimension and an optional curvature, such as 'H2', "
                    "'S2(0.5)' or 'E3'"
                )
            kind, digits = match.group("kind"), match.group("dim")
            if len(digits.lstrip("0")) > _MAX_DIGITS or int(digits) > MAX_AMBIENT_DIM:
                raise ValueError(
                    f"signature {_clip(text)!r}: the factor {_clip(as_written)!r} ({where}) has dimension "
                    f"{_clip(digits, 24)}; the limit is {MAX_AMBIENT_DIM:,} ambient coordinates per row"
                )
            dim = int(digits)
            if dim < 1:
                raise ValueError(
                    f"malformed signature {text!r}: factor {as_written!r} ({where}) has dimension 0; expected at "
                    "least 1"
                )
            so_far = f"signature {_clip(text)!r} up to the factor {_clip(as_written)!r} ({where})"
            if len(parsed) + repeat > MAX_SIGNATURE_COMPONENTS:
                raise ValueError(_too_many_components(len(parsed) + repeat, so_far))
            ambient += repeat * (dim if kind == "E" else dim + 1)
            if ambient > MAX_AMBIENT_DIM:
                raise ValueError(_too_wide(ambient, so_far))
            curvature = float(match.group("curv")) if match.group("curv") else _DEFAULT_CURVATURE[kind]
            parsed.extend([(kind, dim, curvature)] * repeat)
        return parsed

    @classmethod
    def resolve(cls, spec, n_features: int, name: str = "X", check_width: bool = True) -> Signature:
        """An estimator's signature for data of ``n_features`` ambient columns.

        The one resolution rule of every estimator family (trees, forests, boosting,
        Klein wrappers, baselines): ``None`` means all-Euclidean (``E<n_features>``), so
        each estimator also works as its plain Euclidean counterpart on any matrix;
        anything else is parsed and must be exactly as wide as the data.

        Parameters
        ----------
        spec : None, str, Signature or sequence of (float, int)
            The estimator's ``signature`` parameter.
        n_features : int
            Number of columns of ``X`` (ambient coordinates), shape ``(n_samples, n_features)``.
        name : str, default "X"
            What the data is called in error messages.
        check_width : bool, default True
            False when the data are not in ambient coordinates (the Klein wrappers' Poincaré
            and Klein inputs have one column fewer per H component); the caller checks them.

        Returns
        -------
        Signature
            Its ``ambient_dim`` equals ``n_features``.

        Raises
        ------
        ValueError
            If ``spec`` cannot be parsed (also for a wrong type: it is a parameter
            value, so scikit-learn's convention is a ValueError), or if its ambient
            width differs from ``n_features``; the message gives each component's width.

        Examples
        --------
        >>> Signature.resolve(None, 3)
        Signature('E3')
        >>> Signature.resolve("H2 x E1", 4)
        Signature('H2 x E1')
        """
        if spec is None:
            return cls.euclidean(n_features)
        try:
            signature = cls.parse(spec)
        except TypeError as error:
            raise ValueError(str(error)) from None
        if check_width and signature.ambient_dim != n_features:
            raise ValueError(signature.width_message(n_features, name))
        return signature

    def width_message(self, n_columns: int, name: str = "X") -> str:
        """Why data of ``n_columns`` columns does not fit: each component's ambient width, plus a hint.

        The hint covers the usual mistake, intrinsic coordinates (one column fewer per
        H or S component) given instead of ambient ones.
        """
        widths = ", ".join(f"{c.name}: {c.ambient_dim}" for c in self._components)
        message = (
            f"{name} has {n_columns} columns, but signature '{self}' needs {self.ambient_dim} ambient "
            f"coordinates ({widths})"
        )
        if n_columns == self.dim != self.ambient_dim:
            message += (
                f"; {n_columns} is the intrinsic dimension: give hyperboloid / sphere points in ambient "
                "coordinates (one more column per H or S component)"
            )
        return message

    @classmethod
    def euclidean(cls, dim: int) -> Signature:
        """The all-Euclidean signature ``E<dim>`` (the default for estimators)."""
        return cls([("E", int(dim), 0.0)])

    # --------------------------------------------------------------- accessors
    @property
    def components(self) -> tuple[Component, ...]:
        """The components in signature order."""
        return self._components

    @property
    def dim(self) -> int:
        """Intrinsic dimension: the sum of the components' dimensions."""
        return sum(c.dim for c in self._components)

    @property
    def ambient_dim(self) -> int:
        """Width of an ambient-coordinate row ``X[i]`` for this signature."""
        return sum(c.ambient_dim for c in self._components)

    def to_pairs(self) -> list[tuple[float, int]]:
        """The manify-style list ``[(curvature, dim), ...]``."""
        return [(c.curvature, c.dim) for c in self._components]

    def _key(self):
        return tuple((c.kind, c.dim, c.curvature) for c in self._components)

    def __len__(self) -> int:
        return len(self._components)

    def __iter__(self):
        return iter(self._components)

    def __getitem__(self, index) -> Component:
        return self._components[index]

    def __eq__(self, other) -> bool:
        # Only signatures compare equal (not their strings), so that equal objects hash equally.
        return isinstance(other, Signature) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return " x ".join(str(c) for c in self._components)

    def __repr__(self) -> str:
        return f"Signature({str(self)!r})"
