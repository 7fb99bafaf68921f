#include "metal/metal_program.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cache/plan_cache.h"
#include "metal/metal_planner.h"

namespace jax_apple_fft {
namespace {

std::int64_t product(const std::vector<std::int64_t>& shape, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

// Transforms of length n along `axis` of C-contiguous tensors that agree
// with `shape` except along `axis`, where the input holds `in_length`
// elements and the output `out_length`.
MetalRequest along_axis(TransformKind kind, bool forward, std::int64_t n,
                        const std::vector<std::int64_t>& shape, std::int64_t axis,
                        std::int64_t in_length, std::int64_t out_length) {
  MetalRequest r;
  r.kind = kind;
  r.forward = forward;
  r.n = n;
  r.outer_count = product(shape, 0, axis);
  r.inner_count = product(shape, axis + 1, shape.size());
  r.in = MetalLayout{r.inner_count, 1, in_length * r.inner_count};
  r.out = MetalLayout{r.inner_count, 1, out_length * r.inner_count};
  return r;
}

std::uint64_t complex64_bytes(const std::vector<std::int64_t>& shape) {
  return static_cast<std::uint64_t>(product(shape, 0, shape.size())) * 8;
}

}  // namespace

std::vector<MetalStepRequest> metal_step_requests(const TransformSpec& spec) {
  if (spec.kind == TransformKind::kR2C && !spec.forward)
    throw std::invalid_argument("Metal runs R2C with the forward sign only");
  if (spec.kind == TransformKind::kC2R && spec.forward)
    throw std::invalid_argument("Metal runs C2R with the inverse sign only");
  std::vector<MetalStepRequest> steps;
  auto complex_axis = [&](std::int64_t axis, const std::vector<std::int64_t>& shape,
                          MetalProgramTensor source, MetalProgramTensor destination) {
    const std::int64_t n = shape[axis];
    steps.push_back({along_axis(TransformKind::kC2C, spec.forward, n, shape, axis, n, n), source,
                     destination});
  };
  const std::int64_t real_axis = spec.axes.back();
  const std::int64_t n = spec.length(real_axis);
  const std::size_t complex_axes = spec.kind == TransformKind::kC2C ? spec.axes.size()
                                                                    : spec.axes.size() - 1;
  switch (spec.kind) {
    case TransformKind::kC2C: {
      MetalProgramTensor source = MetalProgramTensor::input;
      for (std::size_t i = complex_axes; i-- > 0;) {
        complex_axis(spec.axes[i], spec.in_shape, source, MetalProgramTensor::output);
        source = MetalProgramTensor::output;
      }
      break;
    }
    case TransformKind::kR2C:
      steps.push_back({along_axis(TransformKind::kR2C, true, n, spec.in_shape, real_axis, n,
                                  n / 2 + 1),
                       MetalProgramTensor::input, MetalProgramTensor::output});
      for (std::size_t i = complex_axes; i-- > 0;)
        complex_axis(spec.axes[i], spec.out_shape, MetalProgramTensor::output,
                     MetalProgramTensor::output);
      break;
    case TransformKind::kC2R: {
      MetalProgramTensor source = MetalProgramTensor::input;
      for (std::size_t i = complex_axes; i-- > 0;) {
        complex_axis(spec.axes[i], spec.in_shape, source, MetalProgramTensor::intermediate);
        source = MetalProgramTensor::intermediate;
      }
      steps.push_back({along_axis(TransformKind::kC2R, false, n, spec.in_shape, real_axis,
                                  n / 2 + 1, n),
                       source, MetalProgramTensor::output});
      break;
    }
  }
  // Normalisation is fused into the last step only.
  steps.back().request.scale = spec.scale;
  return steps;
}

MetalProgram prepare_metal_program(const TransformSpec& spec, PlanCache& cache,
                                   MetalExecutor& executor) {
  MetalProgram program;
  const bool real_in = spec.kind == TransformKind::kR2C;
  const bool real_out = spec.kind == TransformKind::kC2R;
  // float32 sides take half the bytes of complex64 ones.
  program.input_bytes = complex64_bytes(spec.in_shape) / (real_in ? 2 : 1);
  program.output_bytes = complex64_bytes(spec.out_shape) / (real_out ? 2 : 1);
  if (spec.empty()) return program;
  for (const MetalStepRequest& s : metal_step_requests(spec)) {
    MetalStep step;
    step.source = s.source;
    step.destination = s.destination;
    step.plan = cache.get<MetalPlan>(s.request.key(), [&] { return build_metal_plan(s.request); });
    const auto executor_kind = static_cast<std::int64_t>(executor.kind());
    for (const MetalDispatch& d : step.plan->dispatches) {
      PlanKey key{"metal.pipeline." + d.kernel, {executor_kind}};
      const auto& constants = d.pipeline_constants;
      key.fields.insert(key.fields.end(), constants.begin(), constants.end());
      step.pipelines.push_back(cache.get<MetalPipeline>(
          key, [&] { return executor.build_pipeline(d.kernel, d.pipeline_constants); }));
    }
    if (step.plan->table_bytes() > 0) {
      PlanKey key = step.plan->key;
      key.family = "metal.tables." + key.family;
      key.fields.push_back(executor_kind);
      step.tables = cache.get<MetalTables>(key, [&] { return executor.upload_tables(step.plan); });
    }
    if (s.destination == MetalProgramTensor::intermediate)
      program.intermediate_bytes = complex64_bytes(spec.in_shape);
    program.scratch_bytes = std::max(program.scratch_bytes, step.plan->scratch_bytes);
    program.steps.push_back(std::move(step));
  }
  return program;
}

}  // namespace jax_apple_fft
