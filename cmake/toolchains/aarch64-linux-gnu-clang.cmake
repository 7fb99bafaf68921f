# The arm64 cross build with Clang (Debian's clang) on the same GNU sysroot.
# Built with Clang, pocketfft's SIMD types are ducc0's own NEON code, as with
# Apple's Clang on macOS; built with GCC they are libstdc++'s
# std::experimental::simd. .ci/arm64 tests both.
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-linux-gnu.cmake)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
