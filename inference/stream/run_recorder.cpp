#include "inference/stream/run_recorder.h"

namespace ts {

std::string RecordedRun::contentText() const {
  std::string out;
  for (const auto& e : events)
    if (e.kind == EventKind::TokenChunk) out += e.text;
  return out;
}

const StreamEvent* RecordedRun::terminal() const {
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->kind == EventKind::Finished || it->kind == EventKind::Failed) return &*it;
  return nullptr;
}

void RunRecorder::record(StreamEvent event) {
  if (event.kind == EventKind::Started && run_.events.empty()) run_.start_ns = event.t_ns;
  if (event.kind == EventKind::Finished || event.kind == EventKind::Failed) terminal_seen_ = true;
  run_.events.push_back(std::move(event));
}

void RunRecorder::clear() {
  run_ = RecordedRun{};
  terminal_seen_ = false;
}

}  // namespace ts
