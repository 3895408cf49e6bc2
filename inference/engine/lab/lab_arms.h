// The lab's arms, ready to run: arm 0 the baseline, then one per lever value (and per
// draft K), each with its model (shared where the lever leaves the weights alone), its
// session, its draft source and its resident memory.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/lab/lab_plan.h"
#include "inference/engine/lab/lab_run.h"
#include "inference/engine/model/model.h"

namespace ts::engine::lab {

struct Arm {
  std::string value;  // the lever's value ("" for the baseline)
  std::shared_ptr<const Model> model;
  KvFormat kv = KvFormat::F16;
  int threads = 1;
  SchedulerOptions scheduling;  // the prefill lever's policy
  std::string draft_spec;       // "" without
  int draft_k = 0;
  std::unique_ptr<DecodeSession> session;
  std::unique_ptr<DraftSource> draft;
  std::string backend, device;
  // Resident memory the arm holds, MiB: the process's before any model, plus the growth
  // measured while its model loaded and its first run ran. An arm sharing an earlier arm's
  // model counts that model's growth with its own KV cache in place of the other's.
  double resident_mb = 0;
  ArmDescription describe() const;
};

// The model a weights value names, loaded (converted, or written once as a GGUF of that
// type in the cache; lab_plan.h lists the values).
Result<std::shared_ptr<const Model>> variantModel(const LabSettings& settings,
                                                  const std::shared_ptr<const Model>& base,
                                                  const std::string& value);

// The baseline settings with the weights `value` names, as the ladder carries a kept step
// on: a runtime format into the load options, a GGUF type or a path into the model path
// (the GGUF type's file must exist: the step that ran it wrote it).
LabSettings settingsWithWeights(const LabSettings& settings, const std::string& value);

// The positions every session holds: prompt + generated tokens (and the draft's K).
int armPositions(const LabSettings& settings);
// VmRSS of this process in MiB (0 where /proc is not there).
double residentMiB();

// Builds the arms; `prime` runs each arm's first, untimed generation (which the memory
// figure includes). Errors name the value that failed.
Result<std::vector<Arm>> makeArms(const LabSettings& settings, const Lever& lever,
                                  const std::function<Result<bool>(Arm&)>& prime,
                                  const LabProgress& progress, const std::atomic<bool>* cancel);

}  // namespace ts::engine::lab
