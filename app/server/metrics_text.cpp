#include "app/server/metrics_text.h"

#include <cstdio>

namespace ts::server {
namespace {

// A label value with \, " and newlines escaped, as the format requires.
std::string escaped(const std::string& value) {
  std::string out;
  for (char c : value)
    out += c == '\\' ? "\\\\" : c == '"' ? "\\\"" : c == '\n' ? "\\n" : std::string(1, c);
  return out;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class Writer {
 public:
  explicit Writer(const std::string& model) : label_("model_name=\"" + escaped(model) + "\"") {}
  void metric(const char* name, const char* type, const char* help, double value) {
    header(name, type, help);
    text_ += std::string(name) + "{" + label_ + "} " + number(value) + "\n";
  }
  void histogram(const char* name, const char* help, const engine::Histogram& h) {
    header(name, "histogram", help);
    uint64_t cumulative = 0;
    for (size_t i = 0; i <= h.bounds.size(); ++i) {
      cumulative += h.counts[i];
      const std::string le = i < h.bounds.size() ? number(h.bounds[i]) : "+Inf";
      text_ += std::string(name) + "_bucket{" + label_ + ",le=\"" + le + "\"} " +
               std::to_string(cumulative) + "\n";
    }
    text_ += std::string(name) + "_sum{" + label_ + "} " + number(h.sum) + "\n";
    text_ += std::string(name) + "_count{" + label_ + "} " + std::to_string(h.count) + "\n";
  }
  std::string text() const { return text_; }

 private:
  void header(const char* name, const char* type, const char* help) {
    text_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  std::string label_, text_;
};

}  // namespace

std::string prometheusText(const engine::SchedulerMetrics& m, const std::string& model_name) {
  Writer w(model_name);
  w.metric("tokenscope:num_requests_running", "gauge", "Requests in the running batch.", m.running);
  w.metric("tokenscope:num_requests_waiting", "gauge", "Requests waiting to run.", m.waiting);
  w.metric("tokenscope:kv_cache_blocks_used", "gauge", "KV cache blocks held by running requests.",
           m.kv_blocks_used);
  w.metric("tokenscope:kv_cache_blocks_cached", "gauge",
           "KV cache blocks held by no request, kept for the prefix cache.", m.kv_blocks_cached);
  w.metric("tokenscope:kv_cache_blocks_total", "gauge", "KV cache blocks in the pool.",
           m.kv_blocks_total);
  w.metric("tokenscope:kv_cache_usage_perc", "gauge",
           "KV cache usage: blocks held by running requests over all blocks (1 = full).",
           m.kv_blocks_total > 0 ? static_cast<double>(m.kv_blocks_used) / m.kv_blocks_total : 0);
  w.metric("tokenscope:kv_cache_bytes", "gauge", "KV cache memory allocated now, in bytes.",
           static_cast<double>(m.kv_bytes));
  w.metric("tokenscope:kv_cache_bytes_total", "gauge",
           "The KV cache pool's size in bytes (allocated as its blocks are first used).",
           static_cast<double>(m.kv_bytes_total));
  w.metric("tokenscope:prefix_cache_queries_total", "counter",
           "Prompt tokens looked up in the prefix cache.",
           static_cast<double>(m.prefix_query_tokens));
  w.metric("tokenscope:prefix_cache_hits_total", "counter",
           "Prompt tokens found in the prefix cache (not computed).",
           static_cast<double>(m.prefix_hit_tokens));
  w.metric("tokenscope:prompt_tokens_total", "counter", "Prompt tokens of admitted requests.",
           static_cast<double>(m.prompt_tokens));
  w.metric("tokenscope:generation_tokens_total", "counter", "Tokens generated.",
           static_cast<double>(m.generation_tokens));
  w.metric("tokenscope:request_finished_total", "counter",
           "Requests finished (stopped, at their length, cancelled or failed).",
           static_cast<double>(m.requests_finished));
  w.metric("tokenscope:num_preemptions_total", "counter",
           "Running requests preempted for KV blocks (computed again later).",
           static_cast<double>(m.preemptions));
  w.histogram("tokenscope:step_duration_seconds", "Duration of one scheduler step (one pass).",
              m.step_seconds);
  w.histogram("tokenscope:iteration_tokens_total", "Tokens in one scheduler step.", m.step_tokens);
  w.histogram("tokenscope:step_batch_size", "Requests (sequences) in one scheduler step.",
              m.step_sequences);
  return w.text();
}

}  // namespace ts::server
