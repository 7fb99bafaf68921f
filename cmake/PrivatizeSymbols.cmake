# Renames, in one SIMD level's object of the CPU kernels, every symbol that
# another object may define too: the weak and unique ones (inline functions,
# template instantiations, vtables, their static data). The linker keeps one
# copy of each such symbol for the whole library; renamed, the level's copies
# (compiled for its instructions) serve only its own code. Strong symbols
# must all be the level's own (in its namespaces): anything else fails here.
#
# cmake -DNM=nm -DREADELF=readelf -DOBJCOPY=objcopy -DOBJECT=in.o
#       -DOUTPUT=out.o -DLEVEL=avx2 -P PrivatizeSymbols.cmake

execute_process(COMMAND "${NM}" -P --defined-only "${OBJECT}"
                OUTPUT_VARIABLE listing RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${NM} could not list ${OBJECT}")
endif()

set(own_namespaces "simd_${LEVEL}|jax_apple_fft_ducc0_${LEVEL}")
string(REPLACE "\n" ";" lines "${listing}")
set(renames "")
set(foreign "")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^([^ ]+) ([A-Za-z]) ")
    continue()
  endif()
  set(name "${CMAKE_MATCH_1}")
  set(type "${CMAKE_MATCH_2}")
  if(type MATCHES "^[WVu]$")
    string(APPEND renames "${name} ${name}.jax_apple_fft_simd_${LEVEL}\n")
  elseif(type MATCHES "^[TDBRG]$" AND NOT name MATCHES "${own_namespaces}")
    string(APPEND foreign "  ${name}\n")
  endif()
endforeach()
if(foreign)
  message(FATAL_ERROR "${OBJECT} defines symbols outside the ${LEVEL} kernels' namespaces:\n"
                      "${foreign}")
endif()

# COMDAT groups are kept one per signature for the whole library, so the
# signatures must be renamed too; most are the weak symbols above, but those
# of constructors and destructors (C5, D5) are local names of their own.
execute_process(COMMAND "${READELF}" -g -W "${OBJECT}"
                OUTPUT_VARIABLE listing RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${READELF} could not list the groups of ${OBJECT}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  if(line MATCHES "^COMDAT group section .*\\[([^ ]+)\\] contains")
    set(signature "${CMAKE_MATCH_1}")
    string(FIND "${renames}" "${signature} ${signature}." renamed)
    if(renamed EQUAL -1)
      string(APPEND renames "${signature} ${signature}.jax_apple_fft_simd_${LEVEL}\n")
    endif()
  endif()
endforeach()

set(renames_file "${OUTPUT}.renames")
file(WRITE "${renames_file}" "${renames}")
execute_process(COMMAND "${OBJCOPY}" "--redefine-syms=${renames_file}" "${OBJECT}" "${OUTPUT}"
                RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${OBJCOPY} could not rename the symbols of ${OBJECT}")
endif()
