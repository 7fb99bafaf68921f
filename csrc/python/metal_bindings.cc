#include "python/metal_bindings.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "metal/dispatch_bindings.h"
#include "metal/emulator/metal_emulator.h"
#include "metal/metal_planner.h"
#include "metal/shader_source.h"
#include "spec/transform_spec.h"

namespace nb = nanobind;

namespace jax_apple_fft {
namespace {

struct PyMetalPlan {
  std::shared_ptr<const MetalPlan> plan;
};

using FloatArray = nb::ndarray<float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ConstFloatArray = nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

const char* buffer_name(MetalBufferSlot buffer) {
  switch (buffer) {
    case MetalBufferSlot::source:
      return "source";
    case MetalBufferSlot::destination:
      return "destination";
    case MetalBufferSlot::scratch:
      return "scratch";
    case MetalBufferSlot::tables:
      return "tables";
  }
  return "?";
}

// The shader's FFT_WALK_* and FFT_FUSED_* values by name (shaders/fft_params.h).
const char* walk_name(std::uint32_t walk) {
  switch (walk) {
    case FFT_WALK_ALONG:
      return "along";
    case FFT_WALK_ACROSS:
      return "across";
    case FFT_WALK_RUN:
      return "run";
  }
  return "?";
}

const char* fused_name(std::uint32_t fused) {
  switch (fused) {
    case FFT_FUSED_NONE:
      return "none";
    case FFT_FUSED_TIMES_TABLE:
      return "times_table";
    case FFT_FUSED_FOUR_STEP_TWIDDLE:
      return "four_step_twiddle";
    case FFT_FUSED_R2C_UNPACK:
      return "r2c_unpack";
    case FFT_FUSED_C2R_PACK:
      return "c2r_pack";
    case FFT_FUSED_RADER_GATHER:
      return "rader_gather";
  }
  return "?";
}

nb::dict side_as_dict(const shaders::FftSide& s) {
  nb::dict d;
  d["kind"] = s.kind;
  d["valid"] = s.valid;
  d["g_mul"] = s.g_mul;
  d["r_mul"] = s.r_mul;
  d["elem_stride"] = s.elem_stride;
  d["inner_count"] = s.inner_count;
  d["inner_stride"] = s.inner_stride;
  d["outer_stride"] = s.outer_stride;
  d["walk"] = walk_name(s.walk);
  return d;
}

nb::dict params_as_dict(const shaders::FftParams& p) {
  nb::dict d;
  d["n"] = p.n;
  nb::list radices;
  for (std::uint32_t s = 0; s < p.num_stages; ++s) radices.append(p.radix[s]);
  d["radices"] = radices;
  d["inverse"] = p.inverse;
  d["transforms"] = p.transforms;
  d["per_batch"] = p.per_batch;
  d["batch_interleave"] = p.batch_interleave;
  d["per_group"] = p.per_group;
  d["threads_per_transform"] = p.threads_per_transform;
  d["group_threads"] = p.group_threads;
  d["pre_mode"] = fused_name(p.pre_mode);
  d["post_mode"] = fused_name(p.post_mode);
  d["convolve"] = p.convolve;
  d["twiddle_n"] = p.twiddle_n;
  d["twiddle_shift"] = p.twiddle_shift;
  d["scale"] = p.scale;
  d["in"] = side_as_dict(p.in);
  d["out"] = side_as_dict(p.out);
  return d;
}

nb::list dispatches_as_list(const MetalPlan& plan) {
  nb::list list;
  for (const MetalDispatch& dispatch : plan.dispatches) {
    nb::dict d;
    d["kernel"] = dispatch.kernel;
    d["threadgroups"] = dispatch.threadgroups;
    d["threads"] = dispatch.threads;
    d["threadgroup_memory_bytes"] = dispatch.threadgroup_memory_bytes;
    nb::list bindings;
    for (const MetalBinding& b : dispatch.bindings) {
      bindings.append(nb::make_tuple(b.index, buffer_name(b.buffer), b.offset_bytes));
    }
    d["bindings"] = bindings;
    d["params"] = params_as_dict(dispatch.params);
    if (dispatch.kernel.rfind("fft_stockham", 0) == 0) {
      const shaders::FftParams& p = dispatch.params;
      d["transform_pitch"] =
          shaders::transform_pitch(p.n, dispatch.kernel == "fft_stockham_pow2", p.in.walk,
                                   p.out.walk, p.threads_per_transform, p.per_group);
    }
    nb::list constants;
    for (std::uint32_t c : dispatch.pipeline_constants) constants.append(c);
    d["pipeline_constants"] = constants;
    // The struct as a kernel receives it (setBytes on a Mac), for other executors.
    d["params_bytes"] = nb::bytes(reinterpret_cast<const char*>(&dispatch.params),
                                  sizeof(dispatch.params));
    list.append(d);
  }
  return list;
}

// (index, address) of each buffer `plan`'s dispatch `index` binds, where the
// plan reads `source`, writes `destination` and has its scratch and tables at
// those addresses (None: absent): dispatch_bindings.h's rule for a plan run
// alone, for executors outside C++.
nb::list bound_addresses(const MetalPlan& plan, std::size_t index, std::uint64_t source,
                         std::uint64_t destination, std::optional<std::uint64_t> scratch,
                         std::optional<std::uint64_t> tables) {
  if (index >= plan.dispatches.size()) throw nb::index_error("no dispatch of that index");
  CallPlaces<std::uint64_t> call;
  call.input = Place<std::uint64_t>{source};
  call.output = Place<std::uint64_t>{destination};
  if (scratch) call.workspace = Place<std::uint64_t>{*scratch};
  if (tables) call.tables = Place<std::uint64_t>{*tables};
  nb::list list;
  try {
    const MetalDispatch& dispatch = plan.dispatches[index];
    for (const BoundBuffer<std::uint64_t>& b : bind_dispatch(dispatch, BindingFrame{}, call)) {
      list.append(nb::make_tuple(b.index, b.place.handle + b.place.offset_bytes));
    }
  } catch (const MetalExecutionError& e) {
    throw nb::value_error(e.what());
  }
  return list;
}

MetalLayout layout_from(const std::array<std::int64_t, 3>& strides) {
  return MetalLayout{strides[0], strides[1], strides[2]};
}

}  // namespace

void bind_metal(nb::module_& m, nb::module_& testing) {
  nb::class_<PyMetalPlan>(m, "MetalPlan", "Dispatch records of one Metal FFT plan.")
      .def_prop_ro("key", [](const PyMetalPlan& p) { return p.plan->key.describe(); })
      .def_prop_ro("dispatches", [](const PyMetalPlan& p) { return dispatches_as_list(*p.plan); })
      .def_prop_ro("table_bytes", [](const PyMetalPlan& p) { return p.plan->table_bytes(); })
      .def_prop_ro(
          "tables",
          [](const PyMetalPlan& p) {
            return nb::bytes(reinterpret_cast<const char*>(p.plan->tables.data()),
                             p.plan->table_bytes());
          },
          "The plan's tables (complex64 values) as the bytes a device reads.")
      .def_prop_ro("scratch_bytes", [](const PyMetalPlan& p) { return p.plan->scratch_bytes; })
      .def_prop_ro("source_bytes", [](const PyMetalPlan& p) { return p.plan->source_bytes; })
      .def_prop_ro("destination_bytes", [](const PyMetalPlan& p) { return p.plan->destination_bytes; })
      .def_prop_ro("bytes", [](const PyMetalPlan& p) { return p.plan->bytes(); })
      .def(
          "bound_addresses",
          [](const PyMetalPlan& p, std::size_t dispatch, std::uint64_t source,
             std::uint64_t destination, std::optional<std::uint64_t> scratch,
             std::optional<std::uint64_t> tables) {
            return bound_addresses(*p.plan, dispatch, source, destination, scratch, tables);
          },
          nb::arg("dispatch"), nb::arg("source"), nb::arg("destination"),
          nb::arg("scratch").none(), nb::arg("tables").none(),
          "[(buffer index, address)] of dispatch `dispatch` where the plan reads `source`, "
          "writes `destination` and finds its scratch and tables (None: absent); raises "
          "ValueError where it binds memory that is absent.");

  m.def(
      "metal_emulator_plan",
      [](TransformKind kind, bool forward, std::int64_t n, std::int64_t outer_count,
         std::int64_t inner_count, std::array<std::int64_t, 3> in_strides,
         std::array<std::int64_t, 3> out_strides, double scale, std::uint32_t coalesced_bytes) {
        MetalRequest request;
        request.kind = kind;
        request.forward = forward;
        request.n = n;
        request.outer_count = outer_count;
        request.inner_count = inner_count;
        request.in = layout_from(in_strides);
        request.out = layout_from(out_strides);
        request.scale = scale;
        request.coalesced_bytes = coalesced_bytes;
        nb::gil_scoped_release release;
        return PyMetalPlan{build_metal_plan(request)};
      },
      nb::arg("kind"), nb::arg("forward"), nb::arg("n"), nb::arg("outer_count"),
      nb::arg("inner_count"), nb::arg("in_strides"), nb::arg("out_strides"), nb::arg("scale"),
      nb::arg("coalesced_bytes") = metal_routes::kAppleCoalescedBytes,
      "Plans a Metal FFT; strides are (element, inner, outer) in units of each side's "
      "element type; `coalesced_bytes`: the GPU's coalesced piece (Apple's by default).");
  m.attr("APPLE_COALESCED_BYTES") = metal_routes::kAppleCoalescedBytes;
  m.attr("NVIDIA_COALESCED_BYTES") = metal_routes::kNvidiaCoalescedBytes;

  testing.def(
      "metal_library_source",
      [](const std::string& main_file) { return amalgamated_shader_source(main_file); },
      nb::arg("main_file"),
      "The kernel library as the one text a Mac compiles at run time when no .metallib "
      "was built.");

  nb::class_<MetalEmulator>(testing, "MetalEmulator",
                            "Runs Metal plans on the CPU, one OS thread per GPU thread.")
      .def(nb::init<std::uint32_t>(), nb::arg("concurrent_groups") = 1)
      .def_prop_ro("concurrent_groups", &MetalEmulator::concurrent_groups)
      .def_prop_ro("worker_count", &MetalEmulator::worker_count)
      .def(
          "run",
          [](MetalEmulator& emulator, const PyMetalPlan& plan, ConstFloatArray input,
             FloatArray output) {
            if (input.size() * sizeof(float) < plan.plan->source_bytes) {
              throw nb::value_error("input buffer is smaller than the plan reads");
            }
            if (output.size() * sizeof(float) < plan.plan->destination_bytes) {
              throw nb::value_error("output buffer is smaller than the plan writes");
            }
            nb::gil_scoped_release release;
            emulator.run(*plan.plan, input.data(), output.data());
          },
          nb::arg("plan"), nb::arg("input"), nb::arg("output"),
          "Runs every dispatch of `plan` on flat float32 views of the tensors.");
}

}  // namespace jax_apple_fft
