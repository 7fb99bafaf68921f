# macOS only: the Apple executor (Objective-C++, ARC) and the kernel library.
#
# The kernels ship twice: as a .metallib compiled here with -fno-fast-math
# when the Metal toolchain is installed, and always as sources, which the
# executor compiles at first use (fast math off) when no .metallib was built.

enable_language(OBJCXX)
target_sources(jax_apple_fft_metal PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/apple_buffers.mm
  ${CMAKE_CURRENT_LIST_DIR}/apple_executor.mm
)
set_source_files_properties(
  ${CMAKE_CURRENT_LIST_DIR}/apple_buffers.mm
  ${CMAKE_CURRENT_LIST_DIR}/apple_executor.mm
  PROPERTIES COMPILE_OPTIONS "-fobjc-arc")
set_target_properties(jax_apple_fft_metal PROPERTIES
  OBJCXX_STANDARD 20 OBJCXX_STANDARD_REQUIRED ON OBJCXX_VISIBILITY_PRESET hidden)
target_compile_definitions(jax_apple_fft_metal PUBLIC JAX_APPLE_FFT_APPLE_EXECUTOR)
# MTLCreateSystemDefaultDevice returns a device to command-line programs only
# when CoreGraphics is linked (Apple's documentation of the function).
target_link_libraries(jax_apple_fft_metal PUBLIC
  "-framework Metal" "-framework Foundation" "-framework CoreGraphics")

set(_shader_dir ${PROJECT_SOURCE_DIR}/shaders)
file(GLOB _shader_files CONFIGURE_DEPENDS ${_shader_dir}/*.metal ${_shader_dir}/*.h)

# `xcrun metal` may exist as a shim without the toolchain behind it: try it.
execute_process(
  COMMAND xcrun -sdk macosx metal --version
  RESULT_VARIABLE _metal_missing OUTPUT_QUIET ERROR_QUIET)
if(_metal_missing EQUAL 0)
  set(_air ${CMAKE_CURRENT_BINARY_DIR}/fft_library.air)
  set(_metallib ${CMAKE_CURRENT_BINARY_DIR}/jax_apple_fft.metallib)
  add_custom_command(
    OUTPUT ${_metallib}
    COMMAND xcrun -sdk macosx metal -std=metal3.0 -mmacosx-version-min=${CMAKE_OSX_DEPLOYMENT_TARGET}
            -fno-fast-math -I ${_shader_dir}
            -c ${_shader_dir}/fft_library.metal -o ${_air}
    COMMAND xcrun -sdk macosx metallib ${_air} -o ${_metallib}
    DEPENDS ${_shader_files}
    COMMENT "Compiling the Metal kernels into jax_apple_fft.metallib")
  add_custom_target(jax_apple_fft_metallib ALL DEPENDS ${_metallib})
  if(TARGET _core)
    install(FILES ${_metallib} DESTINATION jax_apple_fft)
  endif()
  message(STATUS "Metal kernels: jax_apple_fft.metallib (built with the Metal toolchain)")
else()
  message(STATUS "Metal kernels: no Metal toolchain; the kernels compile from source at first use")
endif()

if(TARGET _core)
  install(FILES ${_shader_files} DESTINATION jax_apple_fft/shaders)
endif()
