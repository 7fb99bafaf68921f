# The XLA FFI headers the module compiles against: always those of the oldest
# jaxlib the package supports.
#
# A handler records the FFI API version of the headers it was compiled with,
# and a jaxlib refuses handlers newer than its own API ("handler's API version
# (0.5) is incompatible with the framework's API version (0.4)"), while newer
# jaxlibs accept older handlers. So one binary runs with every jaxlib from
# the oldest supported up only if it is built against the oldest one's headers,
# whatever jaxlib the build environment holds.
#
# Where the headers come from, first match wins:
#   1. JAX_APPLE_FFT_XLA_FFI_INCLUDE_DIR (environment): a directory holding
#      xla/ffi/api/c_api.h of the oldest API, for offline builds;
#   2. the build environment's jaxlib, when it is the oldest supported (pip's
#      isolated build environment: pyproject.toml pins it there);
#   3. the oldest jaxlib's wheel, downloaded with pip into the build tree and
#      unpacked there (headers only).
# Headers of any other API version are refused.
#
# Result: XLA_FFI_INCLUDE_DIR.

# pyproject.toml's lowest jaxlib and the FFI API its headers declare
# (tests/test_packaging.py checks that the two files agree).
set(JAX_APPLE_FFT_OLDEST_JAXLIB "0.10.2")
set(JAX_APPLE_FFT_OLDEST_FFI_API "0.3")

function(_xla_ffi_api_version include_dir out_version)
  set(_header "${include_dir}/xla/ffi/api/c_api.h")
  if(NOT EXISTS "${_header}")
    set(${out_version} "" PARENT_SCOPE)
    return()
  endif()
  file(STRINGS "${_header}" _major REGEX "^#define XLA_FFI_API_MAJOR [0-9]+")
  file(STRINGS "${_header}" _minor REGEX "^#define XLA_FFI_API_MINOR [0-9]+")
  string(REGEX REPLACE ".* ([0-9]+)$" "\\1" _major "${_major}")
  string(REGEX REPLACE ".* ([0-9]+)$" "\\1" _minor "${_minor}")
  set(${out_version} "${_major}.${_minor}" PARENT_SCOPE)
endfunction()

set(XLA_FFI_INCLUDE_DIR "")
if(DEFINED ENV{JAX_APPLE_FFT_XLA_FFI_INCLUDE_DIR})
  set(_candidate "$ENV{JAX_APPLE_FFT_XLA_FFI_INCLUDE_DIR}")
  _xla_ffi_api_version("${_candidate}" _api)
  if(NOT _api STREQUAL JAX_APPLE_FFT_OLDEST_FFI_API)
    message(FATAL_ERROR
      "JAX_APPLE_FFT_XLA_FFI_INCLUDE_DIR=${_candidate} holds XLA FFI API '${_api}'; "
      "it must hold the headers of jaxlib ${JAX_APPLE_FFT_OLDEST_JAXLIB} "
      "(API ${JAX_APPLE_FFT_OLDEST_FFI_API}), found in that wheel under jaxlib/include")
  endif()
  set(XLA_FFI_INCLUDE_DIR "${_candidate}")
endif()

if(NOT XLA_FFI_INCLUDE_DIR)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c
            "import jaxlib, os; print(os.path.join(os.path.dirname(jaxlib.__file__), 'include'))"
    OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE _installed
    RESULT_VARIABLE _status ERROR_QUIET)
  if(_status EQUAL 0)
    _xla_ffi_api_version("${_installed}" _api)
    if(_api STREQUAL JAX_APPLE_FFT_OLDEST_FFI_API)
      set(XLA_FFI_INCLUDE_DIR "${_installed}")
    else()
      message(STATUS "The installed jaxlib's XLA FFI API is '${_api}', not "
                     "${JAX_APPLE_FFT_OLDEST_FFI_API}: using jaxlib "
                     "${JAX_APPLE_FFT_OLDEST_JAXLIB}'s headers instead")
    endif()
  endif()
endif()

if(NOT XLA_FFI_INCLUDE_DIR)
  set(_root "${CMAKE_BINARY_DIR}/_deps/xla_ffi-${JAX_APPLE_FFT_OLDEST_JAXLIB}")
  if(NOT EXISTS "${_root}/include/.complete")
    message(STATUS "Downloading jaxlib ${JAX_APPLE_FFT_OLDEST_JAXLIB} with pip for its XLA FFI headers")
    file(REMOVE_RECURSE "${_root}")
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --quiet --no-deps --only-binary=:all:
              "jaxlib==${JAX_APPLE_FFT_OLDEST_JAXLIB}" -d "${_root}/download"
      RESULT_VARIABLE _pip_result)
    file(GLOB _wheel "${_root}/download/jaxlib-*.whl")
    if(NOT _pip_result EQUAL 0 OR NOT _wheel)
      message(FATAL_ERROR
        "pip could not download jaxlib ${JAX_APPLE_FFT_OLDEST_JAXLIB} for its XLA FFI headers. "
        "Build in pip's isolated environment (the default), install "
        "jaxlib==${JAX_APPLE_FFT_OLDEST_JAXLIB} in the build environment, or set "
        "JAX_APPLE_FFT_XLA_FFI_INCLUDE_DIR to a copy of that wheel's jaxlib/include")
    endif()
    file(ARCHIVE_EXTRACT INPUT "${_wheel}" DESTINATION "${_root}/unpacked"
         PATTERNS "jaxlib/include/xla/ffi/*")
    file(RENAME "${_root}/unpacked/jaxlib/include" "${_root}/include")
    file(REMOVE_RECURSE "${_root}/unpacked" "${_root}/download")
    file(TOUCH "${_root}/include/.complete")
  endif()
  set(XLA_FFI_INCLUDE_DIR "${_root}/include")
  _xla_ffi_api_version("${XLA_FFI_INCLUDE_DIR}" _api)
  if(NOT _api STREQUAL JAX_APPLE_FFT_OLDEST_FFI_API)
    message(FATAL_ERROR "jaxlib ${JAX_APPLE_FFT_OLDEST_JAXLIB}'s headers declare XLA FFI API "
                        "'${_api}', not ${JAX_APPLE_FFT_OLDEST_FFI_API}")
  endif()
endif()
message(STATUS "XLA FFI headers (API ${JAX_APPLE_FFT_OLDEST_FFI_API}): ${XLA_FFI_INCLUDE_DIR}")
