"""kappa-GCN: graph convolutions in products of constant-curvature spaces (Bachmann et al. 2020).

Each component of the signature is a kappa-stereographic model (geoopt's
``Stereographic``: a Poincaré ball for kappa < 0, the projected sphere for
kappa > 0, flat space at kappa = 0). One layer, per component, is

    H' = sigma_kappa( A_hat [x]_kappa (H (x)_kappa W  (+)_kappa b) )

where ``(x)_kappa`` is the Mobius matrix-vector product, ``(+)_kappa`` the Mobius
addition, ``sigma_kappa(x) = exp0(relu(log0(x)))``, and ``A_hat [x]_kappa X`` the
kappa-right-matrix-multiplication: for node i the weighted gyromidpoint of its
neighbours' features with weights ``A_hat[i, :]``, scaled (Mobius scalar
multiplication) by ``sum_j A_hat[i, j]``. At kappa = 0 this is exactly Kipf and
Welling's GCN. ``A_hat`` is the symmetrically normalised adjacency with
self-loops. The last layer's per-component features live on the signature; they
are mapped to the tangent space at the origin, concatenated, and a linear layer
gives the class logits (Bachmann et al. use distances to gyroplanes instead; the
tangent-space read-out is the simpler and common variant).

The estimator is transductive, with scikit-learn's semi-supervised convention:
the graph is the ``adjacency`` parameter, ``fit(X, y)`` takes the features of
every node and labels with ``-1`` for unlabelled nodes, and ``predict(X)``
returns a label for every node.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_array, check_is_fitted

from ..manifolds.signature import Signature
from ..utils import as_generator, require
from ._progress import report, torch_single_thread

__all__ = ["KappaGCNClassifier", "normalized_adjacency"]


def normalized_adjacency(adjacency) -> np.ndarray:
    """``D^-1/2 (A + I) D^-1/2`` of a symmetric adjacency matrix, shape (n, n)."""
    A = np.asarray(adjacency, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"adjacency must be a square (n_nodes, n_nodes) matrix, got shape {A.shape}")
    if not np.all(np.isfinite(A)) or np.any(A < 0):
        raise ValueError("adjacency must have finite, non-negative entries")
    if not np.allclose(A, A.T):
        raise ValueError("adjacency must be symmetric (an undirected graph)")
    A = A.copy()
    np.fill_diagonal(A, 1.0)
    degree = A.sum(axis=1)
    scale = 1.0 / np.sqrt(degree)
    return A * scale[:, None] * scale[None, :]


class KappaGCNClassifier(ClassifierMixin, BaseEstimator):
    """Node classifier made of kappa-GCN layers on a product of stereographic models.

    Parameters
    ----------
    adjacency : array-like of shape (n_nodes, n_nodes), default=None
        Symmetric adjacency matrix of the graph (required by ``fit``).
    signature : str or Signature, default="H2"
        Curvature and dimension of each component of the last layer; hidden
        layers use the same curvatures with ``hidden_dims`` dimensions per component.
    hidden_dims : tuple of int, default=(16,)
        Width of each hidden layer, per component.
    n_epochs : int, default=200
    lr : float, default=0.01
        Adam learning rate.
    weight_decay : float, default=5e-4
        L2 penalty on the weights.
    learn_curvature : bool, default=False
        Learn the curvature of every H and S component (E stays flat).
    random_state : int, Generator or None, default=None
        Seeds a local ``torch.Generator`` for the initial weights.
    callback : callable, default=None
        ``callback(epoch, loss)`` after every epoch; return False to cancel
        (``fit`` then raises :class:`curvedtrees.embeddings.Cancelled`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    signature_ : Signature
        The last layer's signature with the (possibly learned) curvatures.
    loss_history_ : ndarray of shape (n_epochs,)
    n_features_in_ : int

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from curvedtrees.datasets import load_graph
    >>> from curvedtrees.embeddings import KappaGCNClassifier
    >>> graph = load_graph("karate_club")
    >>> adjacency = nx.to_numpy_array(graph.graph)
    >>> y = np.array([graph.y[node] for node in graph.graph.nodes()])
    >>> model = KappaGCNClassifier(adjacency=adjacency, signature="H2", n_epochs=20, random_state=0)
    >>> model.fit(np.eye(len(y)), y).predict(np.eye(len(y))).shape
    (34,)
    """

    def __init__(
        self,
        adjacency=None,
        signature="H2",
        hidden_dims=(16,),
        n_epochs=200,
        lr=0.01,
        weight_decay=5e-4,
        learn_curvature=False,
        random_state=None,
        callback=None,
    ):
        self.adjacency = adjacency
        self.signature = signature
        self.hidden_dims = hidden_dims
        self.n_epochs = n_epochs
        self.lr = lr
        self.weight_decay = weight_decay
        self.learn_curvature = learn_curvature
        self.random_state = random_state
        self.callback = callback

    # ------------------------------------------------------------------ network
    def _build(self, torch, geoopt, n_features, n_classes, generator):
        dtype = torch.float64
        signature = Signature.parse(self.signature)
        widths = [int(w) for w in self.hidden_dims]
        if any(w < 1 for w in widths):
            raise ValueError(f"hidden_dims must be positive integers, got {self.hidden_dims!r}")
        manifolds, layers = [], []
        for comp in signature.components:
            learnable = bool(self.learn_curvature) and comp.kind != "E"
            manifolds.append(geoopt.Stereographic(k=torch.tensor(comp.curvature, dtype=dtype), learnable=learnable))
            sizes = [n_features, *widths, comp.dim]
            params = []
            for fan_in, fan_out in itertools.pairwise(sizes):
                bound = math.sqrt(6.0 / (fan_in + fan_out))  # Glorot uniform, as in GCN
                weight = (torch.rand(fan_out, fan_in, generator=generator, dtype=dtype) * 2.0 - 1.0) * bound
                params.append((torch.nn.Parameter(weight), torch.nn.Parameter(torch.zeros(fan_out, dtype=dtype))))
            layers.append(params)
        n_out = signature.dim
        bound = math.sqrt(6.0 / (n_out + n_classes))
        head_w = torch.nn.Parameter((torch.rand(n_classes, n_out, generator=generator, dtype=dtype) * 2 - 1) * bound)
        head_b = torch.nn.Parameter(torch.zeros(n_classes, dtype=dtype))
        return signature, manifolds, layers, (head_w, head_b)

    @staticmethod
    def _aggregate(torch, manifold, A_hat, H, row_sums):
        """kappa-right-matrix-multiplication ``A_hat [x]_kappa H`` (gyromidpoint, scaled)."""
        gamma = manifold.lambda_x(H, keepdim=True)  # conformal factor 2 / (1 + kappa |h|^2)
        numerator = A_hat @ (gamma * H)
        denominator = A_hat @ (gamma - 1.0)
        # On a sphere gamma - 1 can vanish; geoopt's midpoint uses the same guard.
        sign = torch.where(denominator >= 0, 1.0, -1.0)
        two_mean = numerator / (sign * denominator.abs().clamp_min(1e-10))
        mean = manifold.mobius_scalar_mul(torch.tensor(0.5, dtype=H.dtype), two_mean)
        return manifold.mobius_scalar_mul(row_sums, mean)

    def _forward(self, torch, X, A_hat, row_sums, manifolds, layers, head):
        tangents, finals = [], []
        for manifold, params in zip(manifolds, layers):
            H = manifold.expmap0(X)
            for index, (weight, bias) in enumerate(params):
                H = manifold.mobius_matvec(weight, H)
                H = manifold.mobius_add(H, manifold.expmap0(bias))
                H = self._aggregate(torch, manifold, A_hat, H, row_sums)
                if index < len(params) - 1:
                    H = manifold.mobius_fn_apply(torch.relu, H)
            finals.append(H)
            tangents.append(manifold.logmap0(H))
        head_w, head_b = head
        logits = torch.cat(tangents, dim=-1) @ head_w.T + head_b
        return logits, finals

    # ------------------------------------------------------------------ API
    def _check_graph_input(self, X):
        if self.adjacency is None:
            raise ValueError("KappaGCNClassifier needs the graph: pass adjacency=(n_nodes, n_nodes) matrix")
        A_hat = normalized_adjacency(self.adjacency)
        X = check_array(X, dtype=np.float64)
        if X.shape[0] != A_hat.shape[0]:
            raise ValueError(
                f"X has {X.shape[0]} rows but the graph has {A_hat.shape[0]} nodes: pass the features of every "
                "node (the model is transductive)"
            )
        return X, A_hat

    def fit(self, X, y):
        """Train on the labelled nodes.

        Parameters
        ----------
        X : array-like of shape (n_nodes, n_features)
            Features of every node (``np.eye(n_nodes)`` when the graph has none).
        y : array-like of shape (n_nodes,)
            Labels; ``-1`` marks unlabelled nodes (integer labels) as in
            scikit-learn's semi-supervised estimators.

        Returns
        -------
        self
        """
        torch = require("torch", "KappaGCNClassifier")
        geoopt = require("geoopt", "KappaGCNClassifier")
        X, A_hat_np = self._check_graph_input(X)
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y has shape {y.shape}, expected ({X.shape[0]},)")
        labelled = y != -1
        if labelled.sum() < 2:
            raise ValueError("y needs at least two labelled nodes (labels other than -1)")
        self.classes_, codes = np.unique(y[labelled], return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y has a single class {self.classes_[0]!r} among the labelled nodes")
        if int(self.n_epochs) < 1:
            raise ValueError(f"n_epochs must be at least 1, got {self.n_epochs}")
        self.n_features_in_ = X.shape[1]

        seed = int(as_generator(self.random_state).integers(2**62))
        generator = torch.Generator().manual_seed(seed)
        with torch_single_thread(torch):
            signature, manifolds, layers, head = self._build(torch, geoopt, X.shape[1], len(self.classes_), generator)
            weights = [p for params in layers for pair in params for p in pair] + list(head)
            groups = [{"params": weights, "weight_decay": float(self.weight_decay)}]
            curvatures = [m.k for m in manifolds if m.k.requires_grad]
            if curvatures:
                groups.append({"params": curvatures, "weight_decay": 0.0})
            optimizer = torch.optim.Adam(groups, lr=float(self.lr))
            X_t = torch.as_tensor(X)
            A_hat = torch.as_tensor(A_hat_np)
            row_sums = A_hat.sum(dim=1, keepdim=True)
            index = torch.as_tensor(np.flatnonzero(labelled))
            target = torch.as_tensor(codes)
            history = np.empty(int(self.n_epochs))
            for epoch in range(int(self.n_epochs)):
                optimizer.zero_grad(set_to_none=True)
                logits, _ = self._forward(torch, X_t, A_hat, row_sums, manifolds, layers, head)
                loss = torch.nn.functional.cross_entropy(logits[index], target)
                loss.backward()
                optimizer.step()
                history[epoch] = loss.item()
                if not math.isfinite(history[epoch]):
                    raise FloatingPointError(f"kappa-GCN training diverged at epoch {epoch}; try a smaller lr")
                report(self.callback, epoch, history[epoch])
        self._torch_state = (manifolds, layers, head)
        self.loss_history_ = history
        # A learned curvature may cross zero; the kind follows its sign (as in geoopt's
        # kappa-stereographic model, where the same layer works for any kappa).
        learned = [(float(m.k.detach()), c.dim) for c, m in zip(signature.components, manifolds)]
        self.signature_ = Signature.parse(learned)
        return self

    def _outputs(self, X):
        check_is_fitted(self, "classes_")
        torch = require("torch", "KappaGCNClassifier")
        X, A_hat_np = self._check_graph_input(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the model was fitted with {self.n_features_in_}")
        manifolds, layers, head = self._torch_state
        with torch.no_grad(), torch_single_thread(torch):
            A_hat = torch.as_tensor(A_hat_np)
            logits, finals = self._forward(
                torch, torch.as_tensor(X), A_hat, A_hat.sum(dim=1, keepdim=True), manifolds, layers, head
            )
        return logits.numpy(), [h.numpy() for h in finals]

    def predict_proba(self, X):
        """Class probabilities of every node, shape (n_nodes, n_classes)."""
        logits, _ = self._outputs(X)
        logits = logits - logits.max(axis=1, keepdims=True)  # stable softmax
        proba = np.exp(logits)
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Predicted label of every node, shape (n_nodes,)."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def transform(self, X):
        """Last-layer node representations in ambient coordinates of ``signature_``.

        Returns
        -------
        ndarray of shape (n_nodes, signature_.ambient_dim)
            Poincaré-ball features mapped to the hyperboloid, projected-sphere
            features to the sphere, Euclidean features unchanged.
        """
        from ..coords import poincare_to_hyperboloid, stereographic_to_sphere

        _, finals = self._outputs(X)
        blocks = []
        for comp, H in zip(self.signature_.components, finals):
            if comp.kind == "H":
                blocks.append(poincare_to_hyperboloid(H, curvature=comp.curvature))
            elif comp.kind == "S":
                blocks.append(stereographic_to_sphere(H, curvature=comp.curvature))
            else:
                blocks.append(H)
        return np.hstack(blocks)
