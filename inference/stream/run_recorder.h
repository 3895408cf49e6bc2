// Records every event of one run, in arrival order, with its monotonic timestamp.
// Record once, report every metric definition from the record (metrics.h).
#pragma once
#include <string>
#include <vector>

#include "inference/stream/stream_event.h"

namespace ts {

struct RecordedRun {
  int64_t start_ns = 0;  // request start: the Started event's timestamp
  std::vector<StreamEvent> events;

  std::string contentText() const;      // concatenated TokenChunk texts
  const StreamEvent* terminal() const;  // the Finished or Failed event, if any
};

class RunRecorder {
 public:
  void record(StreamEvent event);
  const RecordedRun& run() const { return run_; }
  bool hasTerminal() const { return terminal_seen_; }
  void clear();

 private:
  RecordedRun run_;
  bool terminal_seen_ = false;
};

}  // namespace ts
