"""tools/check_simd_isolation.py on made-up disassembly: it finds code
outside the avx2 level that reaches AVX instructions, and nothing else; and
on the built module: no symbol a SIMD level's object renamed is left
undefined (a dropped copy, called at a null address)."""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import sys

import pytest

from jax_apple_fft import _core

_PATH = pathlib.Path(__file__).resolve().parent.parent / "tools" / "check_simd_isolation.py"
_SPEC = importlib.util.spec_from_file_location("check_simd_isolation", _PATH)
check = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = check  # for its dataclass
_SPEC.loader.exec_module(check)

ENTRY = "_ZN13jax_apple_fft9simd_avx218make_cpu_transformERKNS_13TransformSpecERNS_9PlanCacheE"
SHARED = "_ZN13jax_apple_fft12PassRecorder9task_doneEd"
DISASSEMBLY = f"""
0000000000001000 <prepare>:
    1000:\tcall   2000 <{ENTRY}>
    1005:\tret

0000000000002000 <{ENTRY}>:
    2000:\tvmovups %ymm0,(%rdi)
    2004:\tcall   3000 <{SHARED}>
    2009:\tret

0000000000003000 <{SHARED}>:
    3000:\tvmovsd %xmm0,0x10(%rsp)
    3006:\tret

0000000000004000 <_ZN13jax_apple_fft13simd_baseline3runEv>:
    4000:\tmovsd  %xmm0,0x10(%rsp)
    4006:\t{{CALL}}
    400b:\tret

0000000000005000 <_ZN13jax_apple_fft12PassRecorder9task_doneEd.jax_apple_fft_simd_baseline>:
    5000:\tmovsd  %xmm0,0x10(%rsp)
    5006:\tret
"""


def leaks(call: str) -> list[str]:
    return check.leaks(check.parse(DISASSEMBLY.replace("{CALL}", call)))


def test_baseline_code_calling_a_copy_built_for_avx2_is_a_leak():
    assert leaks(f"call   3000 <{SHARED}>") == [
        f"_ZN13jax_apple_fft13simd_baseline3runEv -> {SHARED}"]


def test_a_jump_into_the_middle_of_avx_code_is_a_leak():
    assert len(leaks(f"jmp    3003 <{SHARED}+0x3>")) == 1


def test_calls_to_baseline_code_and_to_the_entry_point_are_not():
    assert leaks(f"call   5000 <{SHARED}.jax_apple_fft_simd_baseline>") == []
    assert leaks(f"call   2000 <{ENTRY}>") == []


def test_a_function_whose_cold_part_uses_avx_counts_as_using_it():
    cold = """
0000000000006000 <helper.part.0>:
    6000:\tjne    7000 <helper.part.0.cold>
    6006:\tret

0000000000007000 <helper.part.0.cold>:
    7000:\tvzeroupper
    7003:\tret
"""
    functions = check.parse(DISASSEMBLY.replace("{CALL}", "call   6000 <helper.part.0>") + cold)
    assert check.leaks(functions) == ["_ZN13jax_apple_fft13simd_baseline3runEv -> helper.part.0"]


# Only ELF builds rename symbols (macOS builds one level), and `nm -D` reads
# ELF's dynamic symbols only: on a Mach-O module it fails.
@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("nm") is None,
                    reason="reads ELF dynamic symbols with binutils' nm")
def test_the_module_leaves_no_renamed_symbol_undefined():
    assert check.undefined_renamed(_core.__file__) == []
