# The Metal room: kernels (shaders/), planner, executors and their tests.
# Rooms: this folder holds the planner and the executor interface; emulator/
# the CPU emulator; apple/ the Apple executor (macOS). Its C++ tests are in
# tests/cpp/metal/; the CUDA verifier of the same dispatch records is
# verification/cuda/. Included by the top-level CMakeLists.txt after the
# _core target (if any), which links this library.
# The emulator executor builds everywhere; on macOS the Apple executor, the
# .metallib (when the Metal toolchain exists) and the kernel sources join it.

add_library(jax_apple_fft_metal STATIC
  # The planner and what every executor shares (this folder).
  ${CMAKE_CURRENT_LIST_DIR}/cache_executors.cc
  ${CMAKE_CURRENT_LIST_DIR}/dispatch_bindings.cc
  ${CMAKE_CURRENT_LIST_DIR}/metal_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/metal_planner.cc
  ${CMAKE_CURRENT_LIST_DIR}/metal_program.cc
  ${CMAKE_CURRENT_LIST_DIR}/metal_routes.cc
  ${CMAKE_CURRENT_LIST_DIR}/metal_tables.cc
  ${CMAKE_CURRENT_LIST_DIR}/shader_source.cc
  # The emulator: the kernels compiled as C++, run on CPU threads.
  ${CMAKE_CURRENT_LIST_DIR}/emulator/emulated_kernels.cc
  ${CMAKE_CURRENT_LIST_DIR}/emulator/emulator_executor.cc
  ${CMAKE_CURRENT_LIST_DIR}/emulator/emulator_threadgroup.cc
  ${CMAKE_CURRENT_LIST_DIR}/emulator/metal_emulator.cc
)
target_include_directories(jax_apple_fft_metal PUBLIC
  ${PROJECT_SOURCE_DIR}/csrc ${PROJECT_SOURCE_DIR}/shaders)
target_link_libraries(jax_apple_fft_metal PUBLIC jax_apple_fft_backend Threads::Threads)
set_target_properties(jax_apple_fft_metal PROPERTIES POSITION_INDEPENDENT_CODE ON)
# The kernels must keep IEEE semantics here as under `metal -fno-fast-math`.
target_compile_options(jax_apple_fft_metal PRIVATE -fno-fast-math)

if(APPLE)
  include(${CMAKE_CURRENT_LIST_DIR}/apple/apple.cmake)
endif()
