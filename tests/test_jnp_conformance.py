"""jax.numpy.fft is the contract: every case here calls one of our transforms
and the jax.numpy.fft function of the same name with the same arguments, and
requires the same outcome. Either both succeed, with equal shapes and dtypes
and values within twice the accuracy bound (support/accuracy.py), or both
raise, ours an instance of the class jax.numpy.fft raised. Cases are parametrised the way JAX's own
tests/fft_test.py is (input dtypes, shapes, axes, s, norms), each with x64
off and on, and the whole module runs under strict dtype promotion.

Where jax.numpy.fft fails against its own rules (JNP_BUGS) we keep the
rules, and where it is silent numpy 2 decides (NONE_IN_S)."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af
from fft_testing import ALL_TRANSFORMS, N_D, NORMS, ONE_D, REAL_INPUT
from support.accuracy import assert_agree

TWO_D = tuple(name for name in N_D if name.endswith("2"))
X64 = pytest.mark.parametrize("x64_on", (False, True), ids=("x64-off", "x64-on"))


@pytest.fixture(autouse=True)
def strict_promotion():
    with jax.numpy_dtype_promotion("strict"):
        yield


def outcome(module, name, x, kwargs, wrap=lambda f: f):
    """The result of wrap(module.name)(x, **kwargs), or the exception raised."""
    try:
        return wrap(lambda v: getattr(module, name)(v, **kwargs))(x)
    except Exception as error:  # noqa: BLE001 -- comparing what each raises
        return error


def assert_same_outcome(name, x, kwargs, *, transform=None):
    """Ours (under strict promotion) and jax.numpy.fft's agree on this call,
    in the sense of the module docstring. The oracle runs under standard
    promotion (its results are the same; under strict promotion some of
    jax.numpy.fft's own functions fail, see JNP_BUGS) and on the call that
    contract_call gives. `transform` wraps both, e.g. in jax.jit or jax.vmap."""
    wrap = transform or (lambda f: f)
    ours = outcome(af, name, x, kwargs, wrap)
    with jax.numpy_dtype_promotion("standard"):
        theirs = outcome(jnp.fft, name, *contract_call(name, x, kwargs), wrap)
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), (
            f"jax.numpy.fft.{name} raised {type(theirs).__name__}({theirs}); ours gave "
            f"{type(ours).__name__}: {ours if isinstance(ours, Exception) else ours.shape}")
        return
    assert not isinstance(ours, Exception), (
        f"jax.numpy.fft.{name} returned {theirs.dtype}{theirs.shape}; ours raised "
        f"{type(ours).__name__}: {ours}")
    assert_agree(ours, theirs)


def contract_call(name, x, kwargs):
    """The call to jax.numpy.fft whose outcome is our contract for this one:
    the same call, except where jax.numpy.fft has one of the bugs in
    JNP_BUGS. There the contract is jax.numpy.fft's own rule, applied as its
    documentation states it."""
    x, kwargs = np.asarray(x), dict(kwargs)
    if name in REAL_INPUT and x.dtype == np.float16 and x.ndim and kwargs.get("axes") != ():
        x = x.astype(np.float32)  # float16 computes in float32, as for fft
    if "axes" in kwargs and x.ndim:
        kwargs["axes"] = tuple(a % x.ndim if -x.ndim <= a < x.ndim else a
                               for a in kwargs["axes"])
    if isinstance(kwargs.get("n"), (bool, np.integer)):
        kwargs["n"] = int(kwargs["n"])  # a length, whatever integer type holds it
    if kwargs.get("s") == ():
        del kwargs["s"]
        kwargs.setdefault("axes", ())
    return x, kwargs


def make(rng, shape, dtype):
    """Random data of any dtype: integers in [-8, 8], booleans, floats."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(-8, 9, shape).astype(dtype)
    x = rng.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


# --------------------------------------------------------------------------
# Input dtypes: every transform, every dtype JAX's tests use.
# --------------------------------------------------------------------------

DTYPES = ("bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128")


@X64
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ALL_TRANSFORMS)
def test_input_dtypes(name, dtype, x64_on, rng):
    """Each dtype is converted as jax.numpy.fft converts it (float16 computes
    in single precision; 64-bit types in double with x64 on), and complex
    input to a real-input transform raises jax.numpy.fft's error."""
    with jax.enable_x64(x64_on):
        assert_same_outcome(name, make(rng, (3, 6), dtype), {})


# --------------------------------------------------------------------------
# Shapes and axes, eager and jitted.
# --------------------------------------------------------------------------

SHAPES = ((10,), (9,), (10, 10), (2, 3, 4), (2, 3, 4, 5))


def axes_choices(ndim):
    """None, every single axis (both signs), pairs, and all axes reversed."""
    choices = [None] + [(a,) for a in range(-ndim, ndim)]
    choices += [pair for pair in itertools.permutations(range(ndim), 2)][:4]
    if ndim >= 3:
        choices += [tuple(range(ndim))[::-1], (0, 2)]
    return choices


SHAPE_AXES_CASES = (
    [(name, shape, {"axis": axis}) for name in ONE_D for shape in SHAPES
     for axis in range(-len(shape), len(shape))]
    + [(name, shape, {} if axes is None else {"axes": axes}) for name in N_D if name not in TWO_D
       for shape in SHAPES for axes in axes_choices(len(shape))]
    + [(name, shape, {} if axes is None else {"axes": axes}) for name in TWO_D
       for shape in SHAPES if len(shape) >= 2 for axes in (None, (0, 1), (-1, 0), (1, -2))]
)


@pytest.mark.parametrize("jitted", (False, True), ids=("eager", "jit"))
@pytest.mark.parametrize("name,shape,kwargs", SHAPE_AXES_CASES,
                         ids=[f"{n}-{s}-{k}" for n, s, k in SHAPE_AXES_CASES])
def test_shapes_and_axes(name, shape, kwargs, jitted, rng):
    x = make(rng, shape, np.float32 if name in REAL_INPUT else np.complex64)
    assert_same_outcome(name, x, kwargs, transform=jax.jit if jitted else None)


# --------------------------------------------------------------------------
# Norms, in both precisions.
# --------------------------------------------------------------------------

@X64
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ALL_TRANSFORMS)
def test_norms(name, norm, x64_on, rng):
    with jax.enable_x64(x64_on):
        dtype = np.float64 if name in REAL_INPUT else np.complex128
        assert_same_outcome(name, make(rng, (4, 6), dtype), {"norm": norm})


# --------------------------------------------------------------------------
# Lengths: n for the 1-D transforms, s for the N-D ones (crop, pad, odd and
# even lengths, with and without axes).
# --------------------------------------------------------------------------

N_CASES = (1, 2, 5, 6, 8, 13)
S_CASES = (
    ({"s": (4, 8)}),
    ({"s": (3, 5), "axes": (0, 1)}),
    ({"s": (7,), "axes": (0,)}),
    ({"s": (2, 9), "axes": (1, 0)}),
    ({"s": (6,)}),
    ({"s": (1, 1)}),
)


@X64
@pytest.mark.parametrize("n", N_CASES)
@pytest.mark.parametrize("name", ONE_D)
def test_lengths_n(name, n, x64_on, rng):
    with jax.enable_x64(x64_on):
        x = make(rng, (3, 6), np.float32 if name in REAL_INPUT else np.complex64)
        assert_same_outcome(name, x, {"n": n})


@pytest.mark.parametrize("kwargs", S_CASES, ids=[str(k) for k in S_CASES])
@pytest.mark.parametrize("name", N_D)
def test_lengths_s(name, kwargs, rng):
    x = make(rng, (5, 6), np.float32 if name in REAL_INPUT else np.complex64)
    assert_same_outcome(name, x, kwargs)


# --------------------------------------------------------------------------
# Argument edge cases: what the fuzz against numpy found, and neighbours.
# jax.numpy.fft decides each of them.
# --------------------------------------------------------------------------

EDGE_CASES_1D = (
    {"n": -1}, {"n": -3}, {"n": 0}, {"n": True}, {"n": np.int64(5)},
    {"axis": 2}, {"axis": -3}, {"axis": [0]}, {"axis": (0, 1)}, {"norm": "bogus"},
)
EDGE_CASES_ND = (
    {"axes": ()}, {"s": ()}, {"s": (), "axes": ()}, {"s": (-1, 4)}, {"s": (4, -1)},
    {"s": (0, 4)}, {"s": (True, 4)}, {"s": (2, 2, 2)}, {"s": (3,), "axes": (0, 1)},
    {"axes": (0, 0)}, {"axes": (1, -1)}, {"axes": (0, 5)}, {"axes": [1]}, {"axes": (0, 1, 0)},
)


EDGE_CASES = ([(name, kwargs) for name in ONE_D for kwargs in EDGE_CASES_1D]
              + [(name, kwargs) for name in N_D for kwargs in EDGE_CASES_ND])


@X64
@pytest.mark.parametrize("name,kwargs", EDGE_CASES, ids=[f"{n}-{k}" for n, k in EDGE_CASES])
def test_edge_arguments(name, kwargs, x64_on, rng):
    with jax.enable_x64(x64_on):
        x = make(rng, (3, 6), np.float32 if name in REAL_INPUT else np.complex64)
        assert_same_outcome(name, x, kwargs)


@X64
@pytest.mark.parametrize("dtype", ("int32", "float16", "float32", "float64", "complex64"))
@pytest.mark.parametrize("name", N_D)
def test_zero_dimensional_and_empty_axes(name, dtype, x64_on, rng):
    """No axes to transform: jax.numpy.fft returns the input converted by
    jax.lax.fft's rule (so rfftn keeps float16), or raises for a 2-D
    transform of a 0-d array."""
    with jax.enable_x64(x64_on):
        assert_same_outcome(name, make(rng, (), dtype), {})
        if name not in TWO_D:
            assert_same_outcome(name, make(rng, (2, 3), dtype), {"axes": ()})


@pytest.mark.parametrize("shape", ((0,), (3, 0), (0, 4)))
@pytest.mark.parametrize("name", ALL_TRANSFORMS)
def test_empty_inputs(name, shape, rng):
    """Complex transforms of an empty axis return an empty result; real ones
    raise, as jax.numpy.fft's do."""
    if name in TWO_D and len(shape) == 1:
        shape = (1, *shape)
    x = make(rng, shape, np.float32 if name in REAL_INPUT else np.complex64)
    assert_same_outcome(name, x, {})


# --------------------------------------------------------------------------
# vmap: the batched result's dtype and values are jax.numpy.fft's, also for
# inputs whose dtype x64-off canonicalises (complex128 -> complex64).
# --------------------------------------------------------------------------

@X64
@pytest.mark.parametrize("dtype", ("int32", "float64", "complex128"))
@pytest.mark.parametrize("axes", (None, ()), ids=("all-axes", "no-axes"))
@pytest.mark.parametrize("name", tuple(n for n in N_D if n not in TWO_D))
def test_vmap(name, axes, dtype, x64_on, rng):
    with jax.enable_x64(x64_on):
        kwargs = {} if axes is None else {"axes": axes}
        assert_same_outcome(name, make(rng, (2, 3, 4), dtype), kwargs, transform=jax.vmap)


# --------------------------------------------------------------------------
# Gradients, under strict promotion, in both precisions.
# --------------------------------------------------------------------------

@X64
@pytest.mark.parametrize("name", ALL_TRANSFORMS)
def test_grad(name, x64_on, rng):
    with jax.enable_x64(x64_on):
        dtype = np.float64 if name in REAL_INPUT else np.complex128
        x = make(rng, (3, 4), dtype)
        w = make(rng, np.shape(getattr(jnp.fft, name)(x)), np.float64)

        def loss(module):
            return lambda v: jnp.sum(jnp.asarray(w) * jnp.abs(getattr(module, name)(v)) ** 2)

        ours, theirs = jax.grad(loss(af))(x), jax.grad(loss(jnp.fft))(x)
        assert_agree(ours, theirs)


# --------------------------------------------------------------------------
# Where jax.numpy.fft fails against its own rules, we keep the rules: each
# entry shows what jax.numpy.fft does (so that a fix in JAX shows here) and
# contract_call says what we do instead.
# --------------------------------------------------------------------------

def _raises(error_type, words):
    def check(result):
        return isinstance(result, error_type) and words in str(result)
    return check


# (function, input dtype, arguments, x64, promotion, what jax.numpy.fft does)
JNP_BUGS = (
    # float16 into a real-input transform: jax.lax.fft keeps float16 and its
    # RFFT refuses it; the complex transforms compute float16 in float32.
    ("rfft", np.float16, {}, False, "strict", _raises(ValueError, "must be float32 or float64")),
    ("rfftn", np.float16, {}, False, "strict", _raises(ValueError, "must be float32 or float64")),
    ("ihfft", np.float16, {}, False, "strict", _raises(ValueError, "must be float32 or float64")),
    # repeated axes written as a negative alias pass jax.numpy.fft's check and
    # fail in a transpose; its rule is a ValueError for repeated axes.
    ("fftn", np.complex64, {"axes": (1, -1)}, False, "strict",
     _raises(TypeError, "transpose permutation")),
    ("irfft2", np.complex64, {"axes": (1, -1)}, False, "strict",
     _raises(TypeError, "transpose permutation")),
    # s=() transforms no axis, yet irfftn crops the last axis to m // 2 + 1.
    ("irfftn", np.complex64, {"s": ()}, False, "strict", lambda result: result.shape == (3, 4)),
    # hfft with n a bool or a numpy integer, under strict promotion: its
    # scaling multiplies by n.
    ("hfft", np.complex64, {"n": np.int32(5)}, False, "strict",
     _raises(Exception, "no available implicit dtype promotion")),
    ("hfft", np.complex64, {"n": True}, False, "strict",
     _raises(Exception, "no available implicit dtype promotion")),
    # ihfft divides by n, so with x64 on an n held in a numpy int64 makes a
    # single-precision result double.
    ("ihfft", np.float32, {"n": np.int64(5)}, True, "standard",
     lambda result: result.dtype == np.complex128),
)


@pytest.mark.parametrize("name,dtype,kwargs,x64_on,promotion,jnp_does", JNP_BUGS,
                         ids=[f"{n}-{np.dtype(d).name}-{k}" for n, d, k, *_ in JNP_BUGS])
def test_jnp_bugs_are_not_followed(name, dtype, kwargs, x64_on, promotion, jnp_does, rng):
    with jax.enable_x64(x64_on):
        x = make(rng, (3, 6), dtype)
        with jax.numpy_dtype_promotion(promotion):
            assert jnp_does(outcome(jnp.fft, name, x, kwargs))
        assert_same_outcome(name, x, kwargs)


# --------------------------------------------------------------------------
# Where jax.numpy.fft is silent, numpy 2 decides: None entries in s.
# --------------------------------------------------------------------------

NONE_IN_S = (
    ("fftn", {"s": (None, 4), "axes": (0, 1)}),
    ("irfftn", {"s": (4, None), "axes": (0, 1)}),
    ("rfft2", {"s": (None, None)}),
)


@pytest.mark.parametrize("name,kwargs", NONE_IN_S, ids=[f"{n}-{k}" for n, k in NONE_IN_S])
def test_none_in_s_takes_the_default_length_as_numpy(name, kwargs, rng):
    """jax.numpy.fft raises TypeError; numpy 2 (deprecated there) and we take
    the default length, so the call equals the one with that length written
    out, which matches jax.numpy.fft."""
    x = make(rng, (5, 6), np.float32 if name in REAL_INPUT else np.complex64)
    assert isinstance(outcome(jnp.fft, name, x, kwargs), TypeError)
    axes = kwargs.get("axes", (-2, -1))
    last = len(axes) - 1
    defaults = [2 * (x.shape[a] - 1) if name.startswith("irfft") and i == last else x.shape[a]
                for i, a in enumerate(axes)]
    explicit = dict(kwargs, s=tuple(d if n is None else n for n, d in zip(kwargs["s"], defaults)))
    assert_same_outcome(name, x, explicit)
    np.testing.assert_array_equal(np.asarray(getattr(af, name)(x, **kwargs)),
                                  np.asarray(getattr(af, name)(x, **explicit)))
