// A request the app's server answered, as the app records and shows it: the client's
// messages and parameters as a GenerationRequest, and its tokens as a RecordedRun (Started,
// one chunk per token with its time, Usage, then Finished or Failed), so that the run store,
// History and the metrics read it like any chat run.
#pragma once
#include <QString>

#include "inference/stream/generation_request.h"
#include "inference/stream/run_recorder.h"

namespace ts {

namespace server {
struct ServedRequest;  // app/server/served_request.h: kept out of this header
}

struct ServedRun {
  GenerationRequest request;      // params.max_tokens: what ran; model: the served model's id
  bool max_tokens_given = false;  // whether the client sent max_tokens
  QString model_asked;            // the id the client named ("" : none)
  RecordedRun run;
  QString finish;  // "stop" | "length" | "cancelled" | "error"
  QString error;   // finish "error": why
  int status = 200;
  int prompt_tokens = 0, completion_tokens = 0, cached_tokens = 0;
  double ttft_ms = -1, tpot_ms = -1;  // -1: not measurable (no token, or one)
};

ServedRun servedRun(const server::ServedRequest& r, const QString& served_model);

}  // namespace ts
