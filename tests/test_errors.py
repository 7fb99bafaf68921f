"""Bad arguments fail at trace time with numpy's exception types (before any
plan is looked up or compiled); NaN and Inf propagate as in numpy; backend
selection errors."""

from __future__ import annotations

import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af
from fft_testing import call

AxisError = np.exceptions.AxisError
ZERO_POINTS = r"Invalid number of FFT data points \(0\) specified\."


def _complex(shape):
    return np.ones(shape, np.complex64)


def _real(shape):
    return np.ones(shape, np.float32)


# (id, exception, match, function name, input, kwargs, what numpy raises:
#  True for the same exception, another class, or False where numpy accepts it)
BAD_CALLS = [
    # complex input to a real-input transform: jax.numpy.fft's ValueError
    ("rfft-complex", ValueError, "only real valued", "rfft", _complex((4,)), {}, TypeError),
    ("ihfft-complex", ValueError, "only real valued", "ihfft", _complex((4,)), {}, False),
    ("rfftn-complex", ValueError, "only real valued", "rfftn", _complex((3, 4)), {}, TypeError),
    ("rfft2-complex", ValueError, "only real valued", "rfft2", _complex((3, 4)), {}, TypeError),
    ("rfftn-complex-no-axes", ValueError, "only real valued", "rfftn", _complex((3, 4)),
     {"axes": ()}, False),
    # repeated axes (numpy would transform twice; we refuse)
    ("fftn-axes-0-0", ValueError, "repeated", "fftn", _complex((3, 4)), {"axes": (0, 0)}, False),
    ("fftn-axes-1-neg1", ValueError, "repeated", "fftn", _complex((3, 4)),
     {"axes": (1, -1)}, False),
    ("rfftn-axes-1-neg1", ValueError, "repeated", "rfftn", _real((3, 4)), {"axes": (1, -1)}, False),
    ("irfftn-axes-0-neg2", ValueError, "repeated", "irfftn", _complex((3, 4)),
     {"axes": (0, -2)}, False),
    ("fft2-axes-1-1", ValueError, "repeated", "fft2", _complex((3, 4)), {"axes": (1, 1)}, False),
    # axis out of range
    ("fft-axis-2", AxisError, None, "fft", _complex((3, 4)), {"axis": 2}, IndexError),
    ("ifft-axis-neg3", AxisError, None, "ifft", _complex((3, 4)), {"axis": -3}, IndexError),
    ("rfft-axis-5", AxisError, None, "rfft", _real((3, 4)), {"axis": 5}, IndexError),
    ("irfft-axis-1-of-1d", AxisError, None, "irfft", _complex((4,)), {"axis": 1}, IndexError),
    ("hfft-axis-neg2", AxisError, None, "hfft", _complex((4,)), {"axis": -2}, IndexError),
    ("ihfft-axis-1", AxisError, None, "ihfft", _real((4,)), {"axis": 1}, IndexError),
    ("fftn-axes-0-3", AxisError, None, "fftn", _complex((3, 4)), {"axes": (0, 3)}, IndexError),
    ("irfftn-axes-neg4", AxisError, None, "irfftn", _complex((2, 3, 4)),
     {"axes": (-4,)}, IndexError),
    # transform length 0
    ("fft-n0", ValueError, ZERO_POINTS, "fft", _complex((4,)), {"n": 0}, True),
    ("rfft-n0", ValueError, ZERO_POINTS, "rfft", _real((4,)), {"n": 0}, True),
    ("irfft-n0", ValueError, ZERO_POINTS, "irfft", _complex((4,)), {"n": 0}, True),
    ("hfft-n0", ValueError, ZERO_POINTS, "hfft", _complex((4,)), {"n": 0}, True),
    ("ihfft-n0", ValueError, ZERO_POINTS, "ihfft", _real((4,)), {"n": 0}, True),
    ("rfft-empty-axis", ValueError, ZERO_POINTS, "rfft", _real((3, 0)), {}, True),
    ("rfftn-empty-last-axis", ValueError, ZERO_POINTS, "rfftn", _real((3, 0)), {}, True),
    ("fftn-s0", ValueError, ZERO_POINTS, "fftn", _complex((3, 4)),
     {"s": (0, 4), "axes": (0, 1)}, True),
    ("rfftn-s0", ValueError, ZERO_POINTS, "rfftn", _real((3, 4)),
     {"s": (3, 0), "axes": (0, 1)}, True),
    ("fft-negative-n", ValueError, r"\(-3\)", "fft", _complex((4,)), {"n": -3}, True),
    # -1 is no length (jax.numpy.fft), though numpy 2's s takes it as m
    ("fft-n-minus-1", ValueError, r"\(-1\)", "fft", _complex((4,)), {"n": -1}, True),
    ("irfft-n-minus-1", ValueError, r"\(-1\)", "irfft", _complex((4,)), {"n": -1}, True),
    ("fftn-s-minus-1", ValueError, r"\(-1\)", "fftn", _complex((3, 4)),
     {"s": (-1, 4), "axes": (0, 1)}, False),
    ("irfftn-s-minus-1", ValueError, r"\(-1\)", "irfftn", _complex((3, 4)),
     {"s": (3, -1), "axes": (0, 1)}, False),
    # bad norm
    ("fft-norm-bogus", ValueError, "norm", "fft", _complex((4,)), {"norm": "bogus"}, True),
    ("rfft-norm-case", ValueError, "norm", "rfft", _real((4,)), {"norm": "Ortho"}, True),
    ("irfftn-norm-int", ValueError, "norm", "irfftn", _complex((3, 4)), {"norm": 1}, True),
    # non-integer sizes and axes
    ("fft-float-n", TypeError, None, "fft", _complex((4,)), {"n": 4.0}, True),
    ("irfft-float-n", TypeError, None, "irfft", _complex((4,)), {"n": 6.0}, True),
    ("fftn-float-s", TypeError, None, "fftn", _complex((3, 4)),
     {"s": (3.0, 4), "axes": (0, 1)}, True),
    ("fft-float-axis", TypeError, None, "fft", _complex((3, 4)), {"axis": 1.0}, True),
    # jax.numpy.fft's rules where numpy has none: one axis for 1-D transforms,
    # two for the 2-D ones
    ("fft-axis-list", ValueError, "multiple axes", "fft", _complex((3, 4)), {"axis": [0]}, False),
    ("irfft-axis-tuple", ValueError, "multiple axes", "irfft", _complex((3, 4)),
     {"axis": (0, 1)}, False),
    ("fft2-three-axes", ValueError, "only supports 2 axes", "fft2", _complex((2, 3, 4)),
     {"axes": (0, 1, 2)}, False),
    ("ifft2-one-axis", ValueError, "only supports 2 axes", "ifft2", _complex((3, 4)),
     {"axes": (0,)}, False),
    ("rfft2-no-axes", ValueError, "only supports 2 axes", "rfft2", _real((3, 4)), {"axes": ()},
     False),
    ("irfft2-three-axes", ValueError, "only supports 2 axes", "irfft2", _complex((2, 3, 4)),
     {"axes": (0, 1, 2)}, False),
    # s and axes that do not fit together
    ("fftn-s-axes-mismatch", ValueError, "Shape and axes", "fftn", _complex((3, 4)),
     {"s": (3, 4), "axes": (0,)}, True),
    ("rfftn-s-too-long", ValueError, None, "rfftn", _real((3, 4)), {"s": (2, 3, 4)}, True),
]


@pytest.mark.parametrize("exc,match,name,x,kwargs,numpy_too",
                         [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_bad_arguments_fail_at_trace_time(exc, match, name, x, kwargs, numpy_too):
    cache = af.PlanCache()
    # Tracing alone raises: nothing is compiled.
    with pytest.raises(exc, match=match):
        jax.make_jaxpr(lambda v: call(name, v, cache=cache, **kwargs))(x)
    # So do eager and jitted calls, and no plan is ever looked up.
    with pytest.raises(exc, match=match):
        call(name, x, cache=cache, **kwargs)
    with pytest.raises(exc, match=match):
        jax.jit(lambda v: call(name, v, cache=cache, **kwargs))(x)
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.builds, stats.entries) == (0, 0, 0, 0)
    if numpy_too:
        numpy_exc = exc if numpy_too is True else numpy_too
        with warnings.catch_warnings(), pytest.raises(numpy_exc):
            warnings.simplefilter("ignore", DeprecationWarning)
            getattr(np.fft, name)(x, **kwargs)


@pytest.mark.parametrize("name,kwargs", [
    ("fft", {"axis": [0]}), ("ihfft", {"axis": (0,)}), ("fft2", {"axes": (0, 1, 2)}),
    ("irfft2", {"axes": (1,)}),
])
def test_axis_count_errors_match_jax_numpy(name, kwargs):
    x = _real((2, 3, 4)) if name == "ihfft" else _complex((2, 3, 4))
    with pytest.raises(ValueError):
        getattr(jnp.fft, name)(x, **kwargs)
    with pytest.raises(ValueError):
        getattr(af, name)(x, **kwargs)


@pytest.mark.parametrize("name,shape,kwargs", [
    ("fftn", (2, 3), {"axes": [1, 1]}), ("irfftn", (2, 3), {"axes": (0, 0)}),
    ("rfftn", (2, 3), {"axes": [0, 0]}),
    ("fft", (2, 3), {"axis": [1, 1]}), ("ihfft", (2, 3), {"axis": (1, 1)}),
    ("fft2", (2, 3), {"axes": [0]}), ("irfft2", (2, 3, 3), {"axes": (0, 1, 2)}),
])
def test_messages_of_jnp_rules_carry_jnp_words(name, shape, kwargs):
    # jax.numpy.fft's own tests match these words; ours add our name around them.
    x = _real(shape) if name in ("rfftn", "ihfft") else _complex(shape)
    with pytest.raises(ValueError) as theirs:
        getattr(jnp.fft, name)(x, **kwargs)
    with pytest.raises(ValueError) as ours:
        getattr(af, name)(x, **kwargs)
    assert str(theirs.value) in str(ours.value)
    assert f"jax_apple_fft.{name}" in str(ours.value)


def test_batched_double_input_computes_in_single_precision_without_x64():
    # jax.numpy.fft gives complex64 here; the batched tracer is complex128.
    x = np.ones((2, 3), np.complex128)
    for f in (lambda a: af.fftn(a, axes=()), af.fft, lambda a: af.rfft(a.real)):
        assert jax.vmap(f)(x).dtype == np.complex64


@pytest.mark.parametrize("name,shape,kwargs", [
    ("fft", (0,), {}), ("ifft", (3, 0), {"norm": "ortho"}), ("fftn", (0, 3), {}),
    ("fft2", (4, 0), {}), ("ifftn", (2, 0, 3), {"axes": (1, 2)}), ("fft", (5, 0), {"axis": 0}),
    # real transforms: an empty axis other than rfft's last; irfft's default
    # length 2 * (m - 1) is 0 for m = 1 (and for m = 0)
    ("rfftn", (0, 4), {}), ("rfft", (0, 3), {}), ("ihfft", (0, 3), {}),
    ("irfft", (1,), {}), ("irfft", (3, 0), {}), ("hfft", (2, 1), {}),
    ("irfftn", (3, 1), {}), ("irfft2", (0, 4), {}),
])
def test_empty_axis_gives_an_empty_result_like_jnp(name, shape, kwargs):
    # numpy raises here; jax.numpy.fft, the contract, returns an empty array.
    x = _real(shape) if name in ("rfft", "rfftn", "ihfft") else _complex(shape)
    expected = getattr(jnp.fft, name)(x, **kwargs)
    for f in (lambda v: getattr(af, name)(v, **kwargs),
              jax.jit(lambda v: getattr(af, name)(v, **kwargs))):
        out = f(x)
        assert out.shape == expected.shape and out.dtype == expected.dtype


def test_axis_error_is_value_and_index_error():
    with pytest.raises(ValueError):
        af.fft(_complex((3,)), axis=1)
    with pytest.raises(IndexError):
        af.fft(_complex((3,)), axis=1)


# --------------------------------------------------------------------------
# NaN and Inf
# --------------------------------------------------------------------------

def _poisoned(kind, shape, complex_, rng):
    x = rng.standard_normal(shape)
    if complex_:
        x = x + 1j * rng.standard_normal(shape)
    flat = x.reshape(-1)
    size = flat.size
    if kind in ("nan", "both"):
        flat[size // 3] = np.nan
    if kind in ("inf", "both"):
        flat[size - 1] = np.inf
    if kind == "neg-inf":
        flat[0] = -np.inf
    if kind == "imag-nan":
        flat[1] = complex(flat[1].real, np.nan)
    if kind == "imag-inf":
        flat[size // 2] = complex(flat[size // 2].real, np.inf)
    return x


NONFINITE_CASES = [
    ("fft", (3, 8), {}),
    ("ifft", (2, 7), {"norm": "ortho"}),
    ("rfft", (3, 9), {}),
    ("irfft", (3, 5), {}),
    ("irfft", (2, 5), {"n": 9}),
    ("hfft", (2, 6), {}),
    ("ihfft", (2, 10), {}),
    ("fftn", (4, 6), {}),
    ("rfftn", (3, 4, 5), {"axes": (0, 2)}),
    ("irfftn", (4, 5), {}),
]


REAL_KINDS = ("nan", "inf", "both", "neg-inf")
COMPLEX_KINDS = REAL_KINDS + ("imag-nan", "imag-inf")
NONFINITE_GRID = [
    (name, shape, kwargs, kind)
    for name, shape, kwargs in NONFINITE_CASES
    for kind in (REAL_KINDS if name in ("rfft", "ihfft", "rfftn") else COMPLEX_KINDS)
]


@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("name,shape,kwargs,kind", NONFINITE_GRID,
                         ids=[f"{n}-{s}-{k}-{b}" for n, s, k, b in NONFINITE_GRID])
def test_nan_and_inf_propagate_like_numpy(name, shape, kwargs, kind, dtype, rng):
    complex_ = name not in ("rfft", "ihfft", "rfftn")
    x = _poisoned(kind, shape, complex_, rng)
    with jax.enable_x64(dtype == "float64"):
        if dtype == "float32":
            x = x.astype(np.complex64 if complex_ else np.float32)
        out = np.asarray(call(name, x, **kwargs))
    with np.errstate(invalid="ignore", over="ignore"):
        expected = getattr(np.fft, name)(x.astype(np.complex128 if complex_ else np.float64),
                                         **kwargs)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(out), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(out), np.isinf(expected))
    if kind in ("nan", "inf", "both"):
        # The bad value must reach the output (not be silently dropped).
        assert not np.all(np.isfinite(out))


# Short power-of-two lines have written-out transforms of their own, whose
# operations would place NaN and infinity differently from numpy's: every
# position of a bad value, each kind of bad value.
SHORT_LINES = [("fft", 16, {}), ("ifft", 8, {}), ("fft", 64, {}), ("ifft", 32, {"norm": "ortho"}),
               ("rfft", 8, {}), ("rfft", 32, {}), ("irfft", 5, {}), ("irfft", 17, {"n": 32}),
               ("irfft", 9, {"n": 16}), ("hfft", 33, {})]


@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("name,length,kwargs", SHORT_LINES,
                         ids=[f"{n}-{m}" for n, m, _ in SHORT_LINES])
def test_short_lines_place_nan_and_inf_like_numpy(name, length, kwargs, dtype, rng):
    complex_ = name != "rfft"
    bad_values = [np.nan, np.inf, -np.inf] + ([1j * np.nan, 1j * np.inf] if complex_ else [])
    mismatches = []
    with jax.enable_x64(dtype == "float64"):
        for at in range(length):
            for bad in bad_values:
                x = rng.standard_normal((2, length))
                if complex_:
                    x = x + 1j * rng.standard_normal((2, length))
                x[0, at] = x[0, at].real + bad if isinstance(bad, complex) else bad
                x = x.astype({("float32", True): np.complex64, ("float32", False): np.float32,
                              ("float64", True): np.complex128, ("float64", False): np.float64}
                             [dtype, complex_])
                out = np.asarray(call(name, x, **kwargs))
                with np.errstate(invalid="ignore", over="ignore"):
                    want = getattr(np.fft, name)(
                        x.astype(np.complex128 if complex_ else np.float64), **kwargs)
                if not (np.array_equal(np.isnan(out), np.isnan(want))
                        and np.array_equal(np.isinf(out), np.isinf(want))):
                    mismatches.append((at, bad))
    assert not mismatches


# --------------------------------------------------------------------------
# Backends and caches as arguments
# --------------------------------------------------------------------------

def test_backends_report():
    info = af.backends()
    assert set(info) >= {"cpu", "metal"}
    for name, b in info.items():
        assert isinstance(b, af.BackendInfo)
        assert b.name == name
        assert isinstance(b.reason, str) and b.reason
    assert info["cpu"].available


@pytest.mark.skipif(sys.platform == "darwin", reason="Metal may exist on macOS")
def test_metal_unavailable_on_this_platform():
    metal = af.backends()["metal"]
    assert metal.available is False
    assert "Metal" in metal.reason or "metal" in metal.reason
    with pytest.raises(af.BackendUnavailableError, match="metal"):
        af.fft(_complex((8,)), backend="metal")
    with pytest.raises(af.BackendUnavailableError):
        jax.make_jaxpr(lambda v: af.rfft(v, backend="metal"))(_real((8,)))
    assert issubclass(af.BackendUnavailableError, RuntimeError)
    assert issubclass(af.BackendUnavailableError, af.JaxAppleFftError)


@pytest.mark.parametrize("backend", ("bogus", "METAL", "", None, "gpu"))
def test_unknown_backend(backend):
    with pytest.raises(ValueError, match="backend"):
        af.fft(_complex((8,)), backend=backend)
    with pytest.raises(ValueError, match="backend"):
        jax.make_jaxpr(lambda v: af.irfftn(v, backend=backend))(_complex((3, 5)))


@pytest.mark.parametrize("backend", ("auto", "cpu"))
def test_cpu_backends_compute(backend, rng):
    x = rng.standard_normal(12).astype(np.float32)
    out = af.rfft(x, backend=backend)
    np.testing.assert_allclose(np.asarray(out), np.fft.rfft(x.astype(np.float64)),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cache", ("x", 3, object(), {}))
def test_cache_of_wrong_type(cache):
    with pytest.raises(TypeError, match="PlanCache"):
        af.fft(_complex((8,)), cache=cache)
    with pytest.raises(TypeError, match="PlanCache"):
        jax.make_jaxpr(lambda v: af.rfftn(v, cache=cache))(_real((2, 8)))


def test_closed_cache_fails_at_trace_time():
    cache = af.PlanCache()
    cache.close()
    with pytest.raises(af.CacheClosedError):
        jax.make_jaxpr(lambda v: af.fft(v, cache=cache))(_complex((8,)))
    with pytest.raises(af.CacheClosedError):
        af.irfft(_complex((5,)), cache=cache)


def test_error_hierarchy():
    assert issubclass(af.UnsupportedError, ValueError)
    assert issubclass(af.PlanBuildError, RuntimeError)
    assert issubclass(af.CacheClosedError, RuntimeError)
    assert issubclass(af.BackendUnavailableError, RuntimeError)
    for error in (af.UnsupportedError, af.PlanBuildError, af.CacheClosedError,
                  af.BackendUnavailableError):
        assert issubclass(error, af.JaxAppleFftError)


def test_native_errors_are_the_package_classes():
    # Raised by the extension (a closed cache's plan lookup), caught by the base class.
    from jax_apple_fft._core import testing
    from jax_apple_fft.primitive.transform_kind import Precision, TransformKind

    cache = af.PlanCache()
    cache.close()
    with pytest.raises(af.JaxAppleFftError) as caught:
        testing.describe_cpu(cache.handle, TransformKind.C2C, True, Precision.SINGLE, [8], [0], [8])
    assert type(caught.value) is af.CacheClosedError


def test_primitive_rejects_inconsistent_parameters():
    """The primitive's own shape rule guards against misuse of fft_p."""
    from jax_apple_fft.primitive import Transform, fft_p
    from jax_apple_fft.runtime.cache import CacheHandle

    params = {"scale": 1.0, "backend": "cpu", "auto_backend": False,
              "cache": CacheHandle.of(af.default_cache()), "overwrite_x": False}
    with pytest.raises(ValueError):
        fft_p.bind(jnp.zeros((4, 6), jnp.complex64), transform=Transform.FFT, axes=(1,),
                   lengths=(5,), **params)
    with pytest.raises(TypeError):
        fft_p.bind(jnp.zeros((4, 6), jnp.complex64), transform=Transform.RFFT, axes=(1,),
                   lengths=(6,), **params)
    with pytest.raises(TypeError):
        fft_p.bind(jnp.zeros((4, 4), jnp.float32), transform=Transform.HFFT, axes=(1,),
                   lengths=(6,), **params)
    with pytest.raises(ValueError, match="overwrite_x"):  # the output cannot alias the input
        fft_p.bind(jnp.zeros((4, 6), jnp.float32), transform=Transform.RFFT, axes=(1,),
                   lengths=(6,), **{**params, "overwrite_x": True})
