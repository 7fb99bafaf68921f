"""VkFFT's two configurations differ only in the environment an app is made
in (build_vkfft.sh reads it): Apple's limits for one, none for the other, and
the caller's own environment back afterwards. Needs no GPU or pyvkfft."""

import os

import pytest

import vkfft_reference


@pytest.fixture
def clean_limits(monkeypatch):
    for name in vkfft_reference.APPLE_LIMITS:
        monkeypatch.delenv(name, raising=False)


def test_apple_limits_are_set_while_an_app_is_made(clean_limits):
    with vkfft_reference.limits("apple"):
        assert {name: os.environ[name] for name in vkfft_reference.APPLE_LIMITS} == {
            "VKFFT_SMEM": "32768", "VKFFT_MAXTHREADS": "256", "VKFFT_SWAP3": str(1 << 19)}
    assert not set(vkfft_reference.APPLE_LIMITS) & set(os.environ)


def test_released_plans_without_limits_and_the_callers_settings_come_back(clean_limits,
                                                                          monkeypatch):
    monkeypatch.setenv("VKFFT_SMEM", "1234")
    with vkfft_reference.limits("released"):
        assert not set(vkfft_reference.APPLE_LIMITS) & set(os.environ)
    assert os.environ["VKFFT_SMEM"] == "1234"
    with pytest.raises(RuntimeError), vkfft_reference.limits("apple"):
        raise RuntimeError("an app that fails to build")
    assert os.environ["VKFFT_SMEM"] == "1234"


def test_an_unknown_configuration_is_refused(clean_limits):
    with pytest.raises(ValueError, match="apple"), vkfft_reference.limits("apples"):
        pass
