#include "batch_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

#include "memory_replay.h"
#include "tscope/analyzer/allocation_category.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

struct PeakSplit {
  double fixed = 0;
  double scaling = 0;
  double input = 0;  // the input batches, part of scaling
};

bool is_input_batch(const trace::Trace& trace, const AllocationSite& site) {
  return allocation_category(trace.string(site.owner_op), trace.string(site.scope)) ==
         AllocationCategory::kInputBatches;
}

// Bytes of input batches alive after each memory event that changes them, in time order. A free
// is matched to its allocation by address: the op running at a free is not the one that made it.
std::vector<std::pair<trace::TimeNs, double>> input_batch_series(const trace::Trace& trace,
                                                                 const trace::MemoryOrder& order) {
  std::vector<std::pair<trace::TimeNs, double>> series;
  std::unordered_map<std::uint32_t, std::unordered_map<std::uint64_t, double>> inputs;
  double alive = 0;
  for (std::size_t position = 0; position < order.size(); ++position) {
    const trace::MemoryStep event = order.at(position);
    const trace::MemoryColumns& memory = trace.track(event.track).memory();
    const std::uint64_t address = memory.address[event.index];
    if (address == 0) continue;
    auto& pool = inputs[event.track];
    const auto found = pool.find(address);
    if (found != pool.end()) {
      // A free, or an address reused without one: the old block is gone either way.
      alive -= found->second;
      pool.erase(found);
    }
    if (memory.action(event.index) == trace::MemoryAction::kAlloc &&
        is_input_batch(trace, {memory.owner_op(event.index), memory.scope(event.index)})) {
      const auto bytes = static_cast<double>(memory.bytes[event.index]);
      pool.emplace(address, bytes);
      alive += bytes;
    } else if (found == pool.end()) {
      continue;
    }
    series.emplace_back(event.time, alive);
  }
  return series;
}

// The most input-batch bytes alive at any moment of [start, end].
double most_inputs_within(const std::vector<std::pair<trace::TimeNs, double>>& series,
                          trace::TimeNs start, trace::TimeNs end) {
  auto at =
      std::upper_bound(series.begin(), series.end(), start,
                       [](trace::TimeNs time, const auto& entry) { return time < entry.first; });
  double most = at == series.begin() ? 0 : std::prev(at)->second;
  for (; at != series.end() && at->first <= end; ++at)
    most = std::max(most, at->second);
  return most;
}

// What of the live set scales with the step's batch: input batches, and whatever the step itself
// allocated unless it is model state: a block of a parameter's size (parameters were alive before
// the first step) that outlives the step, as a gradient (kept until the next zero_grad) and an
// optimizer moment do. An activation's gradient of the same size dies within the step.
PeakSplit split_live(const trace::Trace& trace, const MemoryReplay& replay,
                     trace::TimeNs step_start, const MemoryReplay& at_step_end,
                     const std::unordered_set<std::uint64_t>& model_state_sizes) {
  const auto outlives_step = [&](std::uint32_t track, std::uint64_t address,
                                 const LiveAllocation& allocation) {
    const auto pool = at_step_end.live().find(track);
    if (pool == at_step_end.live().end()) return false;
    const auto found = pool->second.find(address);
    return found != pool->second.end() && found->second.event.index == allocation.event.index;
  };
  PeakSplit split;
  for (const auto& [track, pool] : replay.live()) {
    for (const auto& [address, allocation] : pool) {
      const bool input = is_input_batch(trace, allocation.site);
      if (input) split.input += static_cast<double>(allocation.bytes);
      const bool model_state =
          model_state_sizes.contains(allocation.bytes) && outlives_step(track, address, allocation);
      const bool made_by_step = allocation.time >= step_start && !model_state;
      (input || made_by_step ? split.scaling : split.fixed) +=
          static_cast<double>(allocation.bytes);
    }
  }
  split.fixed += static_cast<double>(replay.anonymous_bytes());
  return split;
}

// Sizes of the blocks alive before the first step that are not input batches: the model's state.
std::unordered_set<std::uint64_t> model_state_sizes(const trace::Trace& trace,
                                                    const trace::MemoryOrder& order,
                                                    trace::TimeNs first_step) {
  MemoryReplay replay(trace, order);
  replay.advance_until(first_step);
  std::unordered_set<std::uint64_t> sizes;
  for (const auto& [track, pool] : replay.live()) {
    for (const auto& [address, allocation] : pool) {
      if (!is_input_batch(trace, allocation.site)) {
        sizes.insert(allocation.bytes);
      }
    }
  }
  return sizes;
}

// Bytes alive in `later` that were allocated in (after, until], input batches aside (the fit
// counts those at their most already): made then and kept since.
double state_made_within(const trace::Trace& trace, const MemoryReplay& later, trace::TimeNs after,
                         trace::TimeNs until) {
  double bytes = 0;
  for (const auto& [track, pool] : later.live()) {
    for (const auto& [address, allocation] : pool) {
      if (allocation.time > after && allocation.time <= until &&
          !is_input_batch(trace, allocation.site))
        bytes += static_cast<double>(allocation.bytes);
    }
  }
  return bytes;
}

std::string batch_text(double batch) {
  return std::to_string(static_cast<std::int64_t>(batch));
}

}  // namespace

std::vector<StepDemand> step_demands(const trace::Trace& trace, const trace::MemoryOrder& order,
                                     const StepSet& steps, const std::vector<OomEvent>& ooms) {
  std::vector<StepDemand> demands;
  if (steps.whole_trace || steps.steps.empty()) return demands;
  MemoryReplay scan(trace, order);
  if (scan.empty()) return demands;
  MemoryReplay at_peak(trace, order);
  MemoryReplay at_end(trace, order);
  MemoryReplay at_next_end(trace, order);
  const std::vector<std::pair<trace::TimeNs, double>> inputs = input_batch_series(trace, order);
  const std::unordered_set<std::uint64_t> sizes =
      model_state_sizes(trace, order, steps.steps.front().start);
  for (std::size_t step_index = 0; step_index < steps.steps.size(); ++step_index) {
    const Step& step = steps.steps[step_index];
    if (!step.span) continue;
    const auto oom = std::find_if(ooms.begin(), ooms.end(), [&](const OomEvent& event) {
      return event.time >= step.start && event.time < step.end;
    });
    // A step that the next one repeats under its name was cut short and retried (at a smaller
    // batch, on out of memory). Without an out-of-memory event inside it, the failure came from
    // another thread before it began (a loader worker's, raised when the step waited for that
    // batch): its peak is no complete step's and gives no bound either, but the batches the
    // loader held ready in it still count.
    const bool retried =
        step_index + 1 < steps.steps.size() && steps.steps[step_index + 1].name == step.name;
    // The step says its batch; failing that, the out-of-memory event inside it may.
    std::optional<double> batch = step_batch_size(trace, *step.span);
    if (!batch && oom != ooms.end()) batch = oom->batch_size;
    if (!batch || *batch <= 0) continue;
    StepDemand demand;
    demand.name = step.name;
    demand.batch = *batch;
    if (retried && oom == ooms.end()) {
      demand.cut_short = true;
    } else if (oom != ooms.end()) {
      demand.failed = true;
      at_peak.advance_until(oom->time, true);
      at_end.advance_until(step.end, true);
      const PeakSplit split = split_live(trace, at_peak, step.start, at_end, sizes);
      const double request = oom->requested_bytes.value_or(0);
      demand.peak_bytes = split.fixed + split.scaling + request;
      demand.fixed_bytes = split.fixed;
      demand.input_bytes_at_peak = split.input;
    } else {
      // The peak is reached right after some event of the step, or is what was alive at its start.
      scan.advance_until(step.start);
      std::size_t peak_position = scan.position();
      std::uint64_t peak = scan.live_bytes();
      while (scan.position() < scan.event_count() && scan.time_of(scan.position()) <= step.end) {
        scan.advance_to(scan.position() + 1);
        if (scan.live_bytes() > peak) {
          peak = scan.live_bytes();
          peak_position = scan.position();
        }
      }
      at_peak.advance_to(peak_position);
      at_end.advance_until(step.end, true);
      const PeakSplit split = split_live(trace, at_peak, step.start, at_end, sizes);
      demand.peak_bytes = static_cast<double>(peak);
      demand.fixed_bytes = split.fixed;
      demand.input_bytes_at_peak = split.input;
      if (step_index + 1 < steps.steps.size()) {
        at_next_end.advance_until(steps.steps[step_index + 1].end, true);
      } else {
        at_next_end.advance_to(at_next_end.event_count());
      }
      // After the event that made the peak; from the step's start when the peak is its start.
      const trace::TimeNs after_peak = std::max(
          peak_position == 0 ? step.start - 1 : scan.time_of(peak_position - 1), step.start - 1);
      demand.state_made_after_peak = state_made_within(trace, at_next_end, after_peak, step.end);
    }
    demand.input_bytes_max = most_inputs_within(inputs, step.start, step.end);
    demands.push_back(std::move(demand));
  }
  return demands;
}

std::optional<BatchFit> fit_largest_batch(const std::vector<StepDemand>& demands,
                                          double limit_bytes) {
  std::vector<const StepDemand*> complete;
  std::vector<const StepDemand*> failed;
  for (const StepDemand& demand : demands) {
    if (!demand.cut_short) (demand.failed ? failed : complete).push_back(&demand);
  }
  if ((complete.empty() && failed.empty()) || limit_bytes <= 0) return std::nullopt;
  BatchFit fit;
  fit.limit_bytes = limit_bytes;
  fit.complete_steps = complete.size();
  fit.failed_steps = failed.size();
  // A step's peak counts the loader's batches at their most: as many as any step held ready.
  double input_per_sample = 0;
  for (const StepDemand& demand : demands) {
    input_per_sample = std::max(input_per_sample, demand.input_bytes_max / demand.batch);
  }
  // And it counts the state that the step itself made after its peak and every later step holds
  // (the first step's optimizer moments), or a line through the first step would promise a batch
  // the second cannot run.
  const auto worst_peak = [&](const StepDemand& step) {
    return step.peak_bytes + step.state_made_after_peak - step.input_bytes_at_peak +
           std::max(step.input_bytes_at_peak, input_per_sample * step.batch);
  };
  if (!complete.empty()) {
    // The worst peak at each batch size.
    std::map<double, double> peak_by_batch;
    for (const StepDemand* step : complete) {
      double& peak = peak_by_batch[step->batch];
      peak = std::max(peak, worst_peak(*step));
    }
    if (peak_by_batch.size() >= 2) {
      double sum_x = 0, sum_y = 0, sum_xx = 0, sum_xy = 0;
      for (const auto& [batch, peak] : peak_by_batch) {
        sum_x += batch;
        sum_y += peak;
        sum_xx += batch * batch;
        sum_xy += batch * peak;
      }
      const double n = static_cast<double>(peak_by_batch.size());
      fit.per_sample_bytes = (n * sum_xy - sum_x * sum_y) / (n * sum_xx - sum_x * sum_x);
      fit.fixed_bytes = (sum_y - fit.per_sample_bytes * sum_x) / n;
      fit.derivation = "a least-squares line through the worst peak at each of " +
                       std::to_string(peak_by_batch.size()) + " batch sizes (" +
                       std::to_string(complete.size()) + " complete steps)";
    }
    if (fit.per_sample_bytes <= 0) {
      // One batch size: the step whose split leaves room for the fewest samples.
      const auto room_for = [&](const StepDemand* step) {
        return (limit_bytes - step->fixed_bytes) * step->batch /
               (worst_peak(*step) - step->fixed_bytes);
      };
      const StepDemand* worst = *std::min_element(
          complete.begin(), complete.end(),
          [&](const StepDemand* a, const StepDemand* b) { return room_for(a) < room_for(b); });
      const double peak = worst_peak(*worst);
      fit.fixed_bytes = worst->fixed_bytes;
      fit.per_sample_bytes = (peak - worst->fixed_bytes) / worst->batch;
      fit.derivation =
          "the peak of " + worst->name + " (batch " + batch_text(worst->batch) + ", " +
          format_bytes(peak) +
          " with the loader's batches at their most and the state it made after its peak) split "
          "into " +
          format_bytes(fit.fixed_bytes) +
          " that does not scale (alive before the step, or a parameter-sized block that outlives "
          "it: parameters, gradients, optimizer state) and " +
          format_bytes(peak - fit.fixed_bytes) +
          " that does (what the step allocated, input batches), the tightest of " +
          std::to_string(complete.size()) + " complete steps";
    }
    // A failed step needed at least its demand at the failure: the line must not pass below it.
    for (const StepDemand* step : failed) {
      const double needed = (step->peak_bytes - fit.fixed_bytes) / step->batch;
      if (needed > fit.per_sample_bytes) {
        fit.per_sample_bytes = needed;
        fit.derivation += "; per sample raised to " + format_bytes(needed) +
                          " so that the step that failed at batch " + batch_text(step->batch) +
                          " (needing at least " + format_bytes(step->peak_bytes) +
                          ") lies on or above the line";
      }
    }
  } else {
    // Only failed steps: each bounds the per-sample bytes from below; the largest bound is
    // tightest.
    const StepDemand* tightest = *std::max_element(
        failed.begin(), failed.end(), [](const StepDemand* a, const StepDemand* b) {
          return (a->peak_bytes - a->fixed_bytes) / a->batch <
                 (b->peak_bytes - b->fixed_bytes) / b->batch;
        });
    fit.is_bound = true;
    fit.fixed_bytes = tightest->fixed_bytes;
    fit.per_sample_bytes = (tightest->peak_bytes - tightest->fixed_bytes) / tightest->batch;
    fit.derivation = "no step completed: at the failure in " + tightest->name + " (batch " +
                     batch_text(tightest->batch) + ") " +
                     format_bytes(tightest->peak_bytes - tightest->fixed_bytes) +
                     " scaled with the batch (the failing request, what the step had allocated, "
                     "input batches) and " +
                     format_bytes(tightest->fixed_bytes) +
                     " did not, and the rest of the step would have needed more";
  }
  if (fit.per_sample_bytes <= 0) return std::nullopt;
  fit.largest_batch = static_cast<std::int64_t>(
      std::max(0.0, std::floor((limit_bytes - fit.fixed_bytes) / fit.per_sample_bytes)));
  return fit;
}

}  // namespace tscope::analyzer
