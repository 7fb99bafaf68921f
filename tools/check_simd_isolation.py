"""Checks that a linked x86-64 binary keeps the avx2 SIMD level's
instructions to that level's code: nothing outside the avx2 copy of the CPU
kernels (its namespaces, and the shared symbols its object renames: see
cmake/PrivatizeSymbols.cmake) uses AVX instructions and is reached from
other code, except through the level's entry point. Otherwise a CPU without
AVX could meet an AVX instruction where the linker kept the copy of an
inline function compiled for AVX2.

    python tools/check_simd_isolation.py build/dev/cxx_tests [...]

Also checks that no symbol the build renamed is left undefined. Needs
binutils' objdump and nm, and a symbol table (the C++ test programs have one;
the Python module is stripped). Exits 1 and lists what it found.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import subprocess
import sys

# Names of the avx2 level's code: its namespaces (mangled) and the suffix its
# renamed shared symbols carry.
AVX2_NAME = re.compile(r"9simd_avx2|jax_apple_fft_ducc0_avx2|\.jax_apple_fft_simd_avx2")
RENAMED = re.compile(r"\.jax_apple_fft_simd_\w+")
ENTRY_POINT = re.compile(r"^_ZN13jax_apple_fft9simd_avx218make_cpu_transform")
FUNCTION = re.compile(r"^([0-9a-f]+) <(.+)>:$")
INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\t(.*)$")
TARGET = re.compile(r"\b([0-9a-f]+) <[^<>]+>")
# VEX- and EVEX-encoded instructions all start with "v"; 256- and 512-bit
# registers are AVX's alone.
AVX = re.compile(r"^(?:\{\w+\}\s+)?v[a-z0-9]+\b|%[yz]mm")


@dataclasses.dataclass
class Function:
    name: str
    uses_avx: bool = False
    targets: set[int] = dataclasses.field(default_factory=set)  # addresses referred to


def parse(disassembly: str) -> dict[int, Function]:
    """From `objdump -d -w --no-show-raw-insn` output: every function by its
    address (local functions of two objects may share a name), whether it
    uses AVX instructions, and the addresses it refers to (calls, jumps,
    addresses taken)."""
    functions: dict[int, Function] = {}
    current = None
    for line in disassembly.splitlines():
        if match := FUNCTION.match(line):
            current = functions.setdefault(int(match.group(1), 16), Function(match.group(2)))
        elif current is not None and (match := INSTRUCTION.match(line)):
            instruction = match.group(1)
            current.uses_avx = current.uses_avx or bool(AVX.search(instruction))
            current.targets.update(int(address, 16) for address in TARGET.findall(instruction))
    return functions


def leaks(functions: dict[int, Function]) -> list[str]:
    """References from code outside the avx2 level to code that is the
    level's or uses AVX, other than to the level's entry point. Code without
    the level's name that uses AVX (local clones the compiler makes, static
    helpers of the headers) counts as the level's: only the level may refer
    to it."""
    starts = sorted(functions)

    def containing(address: int) -> int | None:
        index = bisect.bisect_right(starts, address) - 1
        return starts[index] if index >= 0 else None

    def own_part(caller: Function, callee: Function) -> bool:
        # The compiler's split of a function's cold paths: the same function.
        return callee.name.startswith(caller.name + ".cold")

    for caller in functions.values():
        for target in caller.targets:
            callee = containing(target)
            if callee is not None and own_part(caller, functions[callee]):
                caller.uses_avx = caller.uses_avx or functions[callee].uses_avx
    level = {start for start, f in functions.items() if f.uses_avx or AVX2_NAME.search(f.name)}
    found = []
    for start, caller in sorted(functions.items()):
        if start in level:
            continue
        for target in sorted(caller.targets):
            callee = containing(target)
            if (callee in level and callee != start and not own_part(caller, functions[callee])
                    and not ENTRY_POINT.match(functions[callee].name)):
                found.append(f"{caller.name} -> {functions[callee].name}")
    return found


def undefined_renamed(path: str) -> list[str]:
    """Renamed symbols (cmake/PrivatizeSymbols.cmake) that `path` leaves
    undefined: a level's copy the linker dropped, which calls would reach as
    a null address. Reads the dynamic symbols: works on stripped modules."""
    listing = subprocess.run(["nm", "-D", "-u", path], capture_output=True, text=True,
                             check=True).stdout
    return [line.split()[-1] for line in listing.splitlines() if RENAMED.search(line)]


def main(paths: list[str]) -> int:
    failed = False
    for path in paths:
        if missing := undefined_renamed(path):
            print(f"{path}: renamed symbols left undefined:\n  " + "\n  ".join(missing[:50]))
            failed = True
        text = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", path],
                              capture_output=True, text=True, check=True).stdout
        functions = parse(text)
        if not any(AVX2_NAME.search(f.name) for f in functions.values()):
            print(f"{path}: no avx2 level's code (stripped, or a build without it)")
            failed = True
            continue
        found = leaks(functions)
        using = sum(f.uses_avx for f in functions.values())
        print(f"{path}: {using} functions use AVX; "
              f"{len(found)} references reach them from outside the avx2 level")
        for leak in found[:50]:
            print("  " + leak)
        failed = failed or bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
