"""
Coordinate conventions, checked against geoopt
==============================================

Every estimator takes points in *ambient coordinates*:

* ``H`` of curvature ``K < 0``: the hyperboloid ``x0^2 - |x_s|^2 = 1/|K|``, timelike
  coordinate first (``dim + 1`` columns);
* ``S`` of curvature ``K > 0``: the sphere of radius ``1/sqrt(K)`` (``dim + 1`` columns);
* ``E``: plain coordinates (``dim`` columns).

This example converts between the hyperboloid, the Poincaré ball and the Klein ball
with :mod:`curvedtrees.coords`, and checks, at build time, that these are exactly
geoopt's conventions: the same points pass geoopt's checks and give the same
distances.
"""

import geoopt
import matplotlib.pyplot as plt
import numpy as np
import torch
from curvedtrees import coords
from curvedtrees.manifolds import Hyperbolic, Spherical
from geoopt.manifolds.lorentz import math as lorentz_math

K = -0.5
H = Hyperbolic(2, curvature=K)
X = H.random_normal(200, random_state=0)  # hyperboloid points, shape (200, 3)
Y = H.random_normal(200, random_state=1)
R = 1 / np.sqrt(-K)
print("on the hyperboloid:", np.allclose(X[:, 0] ** 2 - (X[:, 1:] ** 2).sum(axis=1), R**2))

# %%
# geoopt's ``Lorentz(k)`` is the hyperboloid ``-x0^2 + |x_s|^2 = -k``, of curvature
# ``-1/k``: our ``H2(K)`` points are ``Lorentz(k=1/|K|)`` points, with the same distances.
lorentz = geoopt.Lorentz(k=torch.tensor(1 / abs(K), dtype=torch.float64))
ok, reason = lorentz.check_point_on_manifold(torch.from_numpy(X), explain=True)
same_dist = np.allclose(lorentz.dist(torch.from_numpy(X), torch.from_numpy(Y)).numpy(), H.dist(X, Y))
print("geoopt.Lorentz accepts them:", ok, "| same distances:", same_dist)
assert ok and same_dist

# %%
# The Poincaré ball of :mod:`curvedtrees.coords` has radius ``1/sqrt|K|``: it is
# geoopt's ``PoincareBall(c=|K|)`` and ``Stereographic(k=K)``.
P, Q = coords.hyperboloid_to_poincare(X, K), coords.hyperboloid_to_poincare(Y, K)
ball = geoopt.PoincareBall(c=torch.tensor(abs(K), dtype=torch.float64))
stereo = geoopt.Stereographic(k=torch.tensor(K, dtype=torch.float64))
for name, manifold in [("PoincareBall(c=|K|)", ball), ("Stereographic(k=K)", stereo)]:
    distances = manifold.dist(torch.from_numpy(P), torch.from_numpy(Q)).numpy()
    print(f"geoopt.{name}: same distances: {np.allclose(distances, H.dist(X, Y))}")
    assert np.allclose(distances, H.dist(X, Y))
assert np.allclose(coords.poincare_to_hyperboloid(P, K), X)

# %%
# One pitfall: geoopt's function ``lorentz_to_poincare(x, k)`` divides by
# ``x0 + sqrt(k)`` without the factor ``sqrt(k)``, so it returns unit-ball coordinates
# ``p / R``, not points of ``PoincareBall(c=1/k)``. Multiply by ``R`` to get ours.
unit_ball = lorentz_math.lorentz_to_poincare(torch.from_numpy(X), k=torch.tensor(R**2, dtype=torch.float64)).numpy()
print("lorentz_to_poincare(x, k) * R == hyperboloid_to_poincare(x, K):", np.allclose(unit_ball * R, P))
assert np.allclose(unit_ball * R, P)

# %%
# geoopt's ``Sphere`` is the unit sphere. A sphere of curvature ``K`` is
# ``Scaled(Sphere(), 1/sqrt(K))`` on unit vectors: divide our points by the radius.
# The same holds for manify's ``Manifold(K, dim)``, which stores unit-manifold points
# inside ``geoopt.Scaled``.
S = Spherical(2, curvature=4.0)
A, B = S.random_normal(100, random_state=2), S.random_normal(100, random_state=3)
radius = 1 / np.sqrt(4.0)
scaled_sphere = geoopt.Scaled(geoopt.Sphere(), radius)
unit_a, unit_b = torch.from_numpy(A / radius), torch.from_numpy(B / radius)
print("unit vectors:", scaled_sphere.check_point_on_manifold(unit_a))
print("same distances:", np.allclose(scaled_sphere.dist(unit_a, unit_b).numpy(), S.dist(A, B)))
assert np.allclose(scaled_sphere.dist(unit_a, unit_b).numpy(), S.dist(A, B))

# %%
# The same hyperbolic points in the Poincaré disk (geodesics are circle arcs) and the
# Klein disk (geodesics are straight chords; a product tree's split on ``(x0, x_j)``
# is a vertical or horizontal line there).
klein = coords.hyperboloid_to_klein(X, K)
fig, axes = plt.subplots(1, 2, figsize=(8, 4), layout="constrained")
for ax, points, title in [(axes[0], P, "Poincaré disk"), (axes[1], klein, "Klein disk")]:
    ax.add_patch(plt.Circle((0, 0), R, fill=False, color="0.5"))
    ax.scatter(points[:, 0], points[:, 1], s=8, c=np.hypot(X[:, 1], X[:, 2]), cmap="viridis")
    ax.set_aspect("equal")
    ax.set_xlim(-1.05 * R, 1.05 * R)
    ax.set_ylim(-1.05 * R, 1.05 * R)
    ax.set_title(f"{title}, radius {R:.3f}")
plt.show()
